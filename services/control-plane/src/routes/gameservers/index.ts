import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { routeOf } from '../table.js';
import { NotFound, NotImplemented } from '../../errors.js';

const Name = Type.String({ minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$' });
const NamespaceParams = Type.Object({ namespace: Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' }) });
const GameServerParams = Type.Object({ namespace: NamespaceParams.properties.namespace, name: Name });

interface KubeObject {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string>; creationTimestamp?: string | Date };
  spec?: unknown;
  status?: unknown;
}

function summary(o: KubeObject) {
  return { name: o.metadata?.name ?? '', namespace: o.metadata?.namespace ?? '', labels: o.metadata?.labels ?? {}, spec: o.spec ?? {}, status: o.status ?? {} };
}

const AGONES = { group: 'agones.dev', version: 'v1' };

/**
 * Minimal game-server handlers: reading Agones objects and profiles from Kubernetes, and the
 * operator/admin routes with their permissions. Operations proper come with a later issue.
 */
const gameServerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { custom, core, namespace: ownNamespace } = app.kube;

  function visible(request: FastifyRequest, items: KubeObject[]): KubeObject[] {
    const namespaces = request.visibleNamespaces;
    if (namespaces === null || namespaces === 'all') return items;
    return items.filter((o) => namespaces.has(o.metadata?.namespace ?? ''));
  }

  async function listAll(plural: string): Promise<KubeObject[]> {
    const list = (await custom.listClusterCustomObject({ ...AGONES, plural })) as { items?: KubeObject[] };
    return list.items ?? [];
  }

  async function listIn(namespace: string, plural: string): Promise<KubeObject[]> {
    const list = (await custom.listNamespacedCustomObject({ ...AGONES, namespace, plural })) as { items?: KubeObject[] };
    return list.items ?? [];
  }

  async function getGameServer(namespace: string, name: string): Promise<KubeObject> {
    try {
      return (await custom.getNamespacedCustomObject({ ...AGONES, namespace, plural: 'gameservers', name })) as KubeObject;
    } catch (err) {
      if (err instanceof NotFound) throw new NotFound(`game server ${namespace}/${name} not found`);
      throw err;
    }
  }

  app.route({ ...routeOf('listGameServers'), handler: async (request) => ({ items: visible(request, await listAll('gameservers')).map(summary) }) });
  app.route({ ...routeOf('listNamespacedGameServers'), schema: { params: NamespaceParams }, handler: async (request) => ({ items: (await listIn(request.params.namespace, 'gameservers')).map(summary) }) });
  app.route({ ...routeOf('getGameServer'), schema: { params: GameServerParams }, handler: async (request) => summary(await getGameServer(request.params.namespace, request.params.name)) });
  app.route({
    ...routeOf('createGameServer'),
    schema: { params: NamespaceParams, body: Type.Object({ name: Name, spec: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }) },
    handler: async (request, reply) => {
      const { namespace } = request.params;
      const body = { apiVersion: 'agones.dev/v1', kind: 'GameServer', metadata: { name: request.body.name, namespace }, spec: request.body.spec ?? {} };
      const created = (await custom.createNamespacedCustomObject({ ...AGONES, namespace, plural: 'gameservers', body })) as KubeObject;
      return reply.code(201).send(summary(created));
    },
  });
  app.route({
    ...routeOf('deleteGameServer'),
    schema: { params: GameServerParams },
    handler: async (request, reply) => {
      const { namespace, name } = request.params;
      try {
        await custom.deleteNamespacedCustomObject({ ...AGONES, namespace, plural: 'gameservers', name });
      } catch (err) {
        if (err instanceof NotFound) throw new NotFound(`game server ${namespace}/${name} not found`);
        throw err;
      }
      return reply.code(204).send();
    },
  });
  app.route({
    ...routeOf('executeAction'),
    schema: { params: GameServerParams, body: Type.Object({ action: Type.String({ minLength: 1, maxLength: 63 }) }) },
    handler: async (request) => {
      await getGameServer(request.params.namespace, request.params.name);
      throw new NotImplemented(`action ${request.body.action} is not available yet`);
    },
  });
  app.route({
    ...routeOf('createSnapshot'),
    schema: { params: GameServerParams },
    handler: async (request) => {
      await getGameServer(request.params.namespace, request.params.name);
      throw new NotImplemented('snapshots are not available yet');
    },
  });
  app.route({
    ...routeOf('openConsole'),
    schema: { params: GameServerParams },
    handler: async (request) => {
      await getGameServer(request.params.namespace, request.params.name);
      throw new NotImplemented('the console is not available yet');
    },
  });
  app.route({ ...routeOf('listFleets'), handler: async (request) => ({ items: visible(request, await listAll('fleets')).map(summary) }) });
  app.route({ ...routeOf('listNamespacedFleets'), schema: { params: NamespaceParams }, handler: async (request) => ({ items: (await listIn(request.params.namespace, 'fleets')).map(summary) }) });
  app.route({
    ...routeOf('listProfiles'),
    handler: async () => {
      // Profiles are ConfigMaps labelled gsp.dev/profile in the control plane's namespace.
      const list = await core.listNamespacedConfigMap({ namespace: ownNamespace, labelSelector: 'gsp.dev/profile' });
      return { items: list.items.map((c) => ({ name: c.metadata?.labels?.['gsp.dev/profile'] || (c.metadata?.name ?? ''), data: c.data ?? {} })) };
    },
  });
};

export default gameServerRoutes;
