import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { routeOf } from '../table.js';
import { NotFound } from '../../errors.js';
import { SnapshotSchema } from '../../snapshots/model.js';
import { SnapshotRetention } from '../../snapshots/retention.js';
import type { WriteAudit } from '../../snapshots/retention.js';
import { SnapshotStore } from '../../snapshots/store.js';
import { SnapshotCreatedSchema, takeSnapshot } from '../../snapshots/take.js';
import type { SnapshotContext } from '../../snapshots/take.js';
import { dnsLabel, ListQuery, listPage, Name, Namespace } from '../params.js';

export interface SnapshotRouteOptions {
  /**
   * Where retention writes the audit line of each snapshot it deletes (no request is behind it,
   * so the request audit cannot). Unset: the application log, at info.
   */
  writeAudit?: WriteAudit;
}

const Params = Type.Object({ namespace: Namespace, name: Name });

const CreateBody = Type.Object(
  {
    name: Type.Optional(
      dnsLabel({
        description: "Default: the game server's name and the UTC time to the second, `<name>-yyyymmddhhmmss`.",
      }),
    ),
  },
  { additionalProperties: false },
);

const snapshotRoutes: FastifyPluginAsyncTypebox<SnapshotRouteOptions> = async (app, opts) => {
  const { custom, watch, exec } = app.kube;
  const { gameServers, locks } = app.agones;
  const store = new SnapshotStore(custom, watch, app.log);
  const ctx: SnapshotContext = { exec, locks, store, profile: (name) => app.profiles.get(name), log: app.log };
  const writeAudit: WriteAudit =
    opts.writeAudit ?? ((line) => app.log.info({ audit: line }, 'snapshot retention deleted a snapshot'));
  const keepOf = (profile: string): number | undefined => {
    // Profiles not loaded yet: keep everything for now; the next ready snapshot tries again.
    if (!app.profiles.ready) return undefined;
    return app.profiles.get(profile)?.snapshot?.keep;
  };
  const retention = new SnapshotRetention({ informer: store.informer, custom, keepOf, log: app.log, writeAudit });
  await store.start();
  retention.start();
  app.addHook('onClose', async () => {
    await retention.stop();
    await store.stop();
  });

  app.route({
    ...routeOf('createSnapshot', [409, 504]),
    schema: { tags: ['snapshots'], params: Params, body: CreateBody, response: { 202: SnapshotCreatedSchema } },
    // The body is optional: most snapshots take the default name.
    preValidation: async (request) => {
      if (request.body === undefined) request.body = {};
    },
    handler: async (request, reply) => {
      const { namespace, name } = request.params;
      gameServers.requireReady();
      const gs = gameServers.get(namespace, name);
      if (gs === undefined) throw new NotFound(`game server ${namespace}/${name} not found`);
      const created = await takeSnapshot(ctx, gs, request.body.name, (outcome) => {
        request.auditOutcome = outcome;
      });
      reply.header('location', `/api/v1/snapshots/${namespace}/${created.name}`);
      return reply.code(202).send(created);
    },
  });

  app.route({
    ...routeOf('listGameServerSnapshots'),
    schema: { tags: ['snapshots'], params: Params, response: { 200: Type.Array(SnapshotSchema) } },
    handler: async (request) => {
      const { namespace, name } = request.params;
      const items = store.ofGameServer(namespace, name);
      gameServers.requireReady();
      // A deleted game server's snapshots stay (they can be restored), and are still listed here.
      if (items.length === 0 && gameServers.get(namespace, name) === undefined)
        throw new NotFound(`game server ${namespace}/${name} not found`);
      return items;
    },
  });

  app.route({
    ...routeOf('listSnapshots'),
    schema: { tags: ['snapshots'], querystring: ListQuery, response: { 200: Type.Array(SnapshotSchema) } },
    handler: async (request, reply) => listPage(request, reply, 'snapshots', (namespace) => store.list(namespace)),
  });

  app.route({
    ...routeOf('getSnapshot'),
    schema: { tags: ['snapshots'], params: Params, response: { 200: SnapshotSchema } },
    handler: async (request) => {
      const { namespace, name } = request.params;
      const found = store.get(namespace, name);
      if (found === undefined) throw new NotFound(`snapshot ${namespace}/${name} not found`);
      return found;
    },
  });

  app.route({
    ...routeOf('deleteSnapshot'),
    schema: {
      tags: ['snapshots'],
      params: Params,
      response: { 204: Type.Null({ description: 'Deleted: the snapshotter removes its data.' }) },
    },
    handler: async (request, reply) => {
      await store.delete(request.params.namespace, request.params.name);
      return reply.code(204).send(null);
    },
  });
};

export default snapshotRoutes;
