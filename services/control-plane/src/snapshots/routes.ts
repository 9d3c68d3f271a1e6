import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { setAudit } from '../audit-target.js';
import { routeOf } from '../rbac/table.js';
import { SnapshotSchema } from './model.js';
import type { WriteAudit } from './retention.js';
import { SnapshotService } from './service.js';
import { SnapshotCreatedSchema } from './take.js';
import { dnsLabel, ListQuery, listPage, Name, Namespace } from '../http/params.js';

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
  const snapshots = new SnapshotService({
    custom,
    watch,
    exec,
    locks,
    gameServers,
    profiles: app.profiles,
    log: app.log,
    writeAudit: opts.writeAudit ?? ((line) => app.log.info({ audit: line }, 'snapshot retention deleted a snapshot')),
  });
  await snapshots.start();
  app.addHook('onClose', () => snapshots.stop());

  app.route({
    ...routeOf('createSnapshot', [409, 504]),
    schema: { tags: ['snapshots'], params: Params, body: CreateBody, response: { 202: SnapshotCreatedSchema } },
    // The body is optional: most snapshots take the default name.
    preValidation: async (request) => {
      if (request.body === undefined) request.body = {};
    },
    handler: async (request, reply) => {
      const { namespace, name } = request.params;
      const created = await snapshots.take(namespace, name, request.body.name, (audit) => setAudit(request, audit));
      reply.header('location', `/api/v1/snapshots/${namespace}/${created.name}`);
      return reply.code(202).send(created);
    },
  });

  app.route({
    ...routeOf('listGameServerSnapshots'),
    schema: { tags: ['snapshots'], params: Params, response: { 200: Type.Array(SnapshotSchema) } },
    handler: async (request) => snapshots.ofGameServer(request.params.namespace, request.params.name),
  });

  app.route({
    ...routeOf('listSnapshots'),
    schema: { tags: ['snapshots'], querystring: ListQuery, response: { 200: Type.Array(SnapshotSchema) } },
    handler: async (request, reply) => listPage(request, reply, 'snapshots', (namespace) => snapshots.list(namespace)),
  });

  app.route({
    ...routeOf('getSnapshot'),
    schema: { tags: ['snapshots'], params: Params, response: { 200: SnapshotSchema } },
    handler: async (request) => snapshots.get(request.params.namespace, request.params.name),
  });

  app.route({
    ...routeOf('deleteSnapshot'),
    schema: {
      tags: ['snapshots'],
      params: Params,
      response: { 204: Type.Null({ description: 'Deleted: the snapshotter removes its data.' }) },
    },
    handler: async (request, reply) => {
      await snapshots.delete(request.params.namespace, request.params.name);
      return reply.code(204).send(null);
    },
  });
};

export default snapshotRoutes;
