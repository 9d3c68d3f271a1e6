import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { setAudit } from '../audit-target.js';
import type { AuditDetails } from '../audit-target.js';
import { routeOf } from '../rbac/table.js';
import { GameServerClient } from './client.js';
import { GameServerCreation } from './create.js';
import { deleteGameServer } from './delete.js';
import { GameServerListing } from './listing.js';
import { gameServerView } from './model.js';
import type { GameServer } from './model.js';
import { checkListedNamespace, mayList, page } from '../http/params.js';
import { CreateSchema, DeleteSchema, GetSchema, ListSchema } from './schemas.js';

const JSON_TYPE = 'application/json; charset=utf-8';

const gameServerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { custom, core } = app.kube;
  const { gameServers } = app.agones;
  const servers = new GameServerClient(custom);
  const listing = new GameServerListing(gameServers);
  const creation = new GameServerCreation({ servers, core, custom, gameServers, profiles: app.profiles });

  app.route({
    ...routeOf('listGameServers'),
    schema: ListSchema,
    handler: async (request, reply) => {
      const { namespace, labelSelector, state, limit, continue: token } = request.query;
      checkListedNamespace(request, namespace, 'game servers');
      // The most common list, everything for a caller who sees everything, is answered as it was last built.
      const everything = [namespace, labelSelector, state, limit, token].every((q) => q === undefined);
      const body =
        everything && !(request.visibleNamespaces instanceof Set)
          ? listing.everything()
          : listing.json(
              page(request, reply, listing.select({ ...request.query, visible: (ns) => mayList(request, ns) })),
            );
      // Already JSON, in the shape the response schema documents (the reply is typed for the objects).
      return reply.type(JSON_TYPE).send(body as unknown as GameServer[]);
    },
  });

  app.route({
    ...routeOf('getGameServer'),
    schema: GetSchema,
    handler: async (request) => gameServerView(listing.cached(request.params.namespace, request.params.name)),
  });

  app.route({
    ...routeOf('createGameServer', [409, 422]),
    schema: CreateSchema,
    handler: async (request, reply) => {
      const { namespace } = request.params;
      const audit = (details: AuditDetails) => setAudit(request, details);
      const created = await creation.create(namespace, request.body, { audit, log: request.log });
      reply.header('location', `/api/v1/gameservers/${namespace}/${created.name}`);
      return reply.code(201).send(created);
    },
  });

  app.route({
    ...routeOf('deleteGameServer', [409]),
    schema: DeleteSchema,
    handler: async (request, reply) => {
      await deleteGameServer(servers, gameServers, { ...request.params, force: request.query.force === true });
      return reply.code(204).send(null);
    },
  });
};

export default gameServerRoutes;
