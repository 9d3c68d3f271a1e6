import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { setAudit } from '../../audit-target.js';
import type { AuditDetails } from '../../audit-target.js';
import { DELETING_SHUTDOWN, routeOf } from '../table.js';
import { GameServerClient } from '../../gameservers/client.js';
import { GameServerCreation } from '../../gameservers/create.js';
import { deleteGameServer } from '../../gameservers/delete.js';
import { GameServerListing } from '../../gameservers/listing.js';
import { gameServerView } from '../../gameservers/model.js';
import type { GameServer } from '../../gameservers/model.js';
import { ActionRunner } from '../../gameservers/run-action.js';
import { ARGS_BODY_LIMIT, checkArgsSize, checkListedNamespace, mayList, page } from '../params.js';
import { ActionSchema, CreateSchema, DeleteSchema, GetSchema, ListSchema } from './schemas.js';

const JSON_TYPE = 'application/json; charset=utf-8';

const gameServerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { custom, core, exec } = app.kube;
  const { gameServers, locks } = app.agones;
  const servers = new GameServerClient(custom);
  const profile = (name: string) => app.profiles.get(name);
  const listing = new GameServerListing(gameServers);
  const creation = new GameServerCreation({ servers, core, custom, gameServers, profiles: app.profiles });
  const actions = new ActionRunner({ servers, exec, gameServers, profile }, locks);

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

  app.route({
    ...routeOf('runAction', [409, 504]),
    bodyLimit: ARGS_BODY_LIMIT,
    schema: ActionSchema,
    // The body is optional: most actions take no args.
    preValidation: async (request) => {
      if (request.body === undefined) request.body = {};
    },
    handler: async (request) => {
      const { namespace, name, action } = request.params;
      const args = request.body.args ?? [];
      checkArgsSize(args);
      const gs = listing.cached(namespace, name);
      const caller = { mayDelete: app.mayDo(request, DELETING_SHUTDOWN.permission, namespace) };
      return actions.run(gs, action, args, caller, (details) => setAudit(request, details));
    },
  });
};

export default gameServerRoutes;
