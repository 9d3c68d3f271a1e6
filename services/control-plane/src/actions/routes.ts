import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { setAudit } from '../audit-target.js';
import { DELETING_SHUTDOWN } from '../contract.js';
import { GameServerClient } from '../gameservers/client.js';
import { GameServerListing } from '../gameservers/listing.js';
import { routeOf } from '../rbac/table.js';
import { ActionRunner } from './run.js';
import { ARGS_BODY_LIMIT, ActionSchema, checkArgsSize } from './schemas.js';

/** `POST /api/v1/gameservers/{namespace}/{name}/actions/{action}`: a built-in action or one of the server's profile. */
const actionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { gameServers, locks } = app.agones;
  const servers = new GameServerClient(app.kube.custom);
  const profile = (name: string) => app.profiles.get(name);
  const listing = new GameServerListing(gameServers);
  const actions = new ActionRunner({ servers, exec: app.kube.exec, gameServers, profile }, locks);

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

export default actionRoutes;
