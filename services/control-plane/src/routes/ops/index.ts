import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ServiceUnavailable } from '../../errors.js';
import { routeOf } from '../table.js';

const opsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.route({
    ...routeOf('health'),
    schema: { tags: ['operations'], response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
    handler: async () => ({ status: 'ok' as const }),
  });

  app.route({
    ...routeOf('readiness', [503]),
    schema: { tags: ['operations'], response: { 200: Type.Object({ status: Type.Literal('ready') }) } },
    handler: async () => {
      if (!app.apikeys.ready) throw new ServiceUnavailable('the API key index has not been loaded from Kubernetes yet');
      if (!app.profiles.ready) throw new ServiceUnavailable('the profiles have not been loaded from Kubernetes yet');
      if (!app.agones.gameServers.ready || !app.agones.fleets.ready)
        throw new ServiceUnavailable('the Agones game servers and fleets have not been loaded from Kubernetes yet');
      return { status: 'ready' as const };
    },
  });

  app.route({
    ...routeOf('openApi'),
    schema: { hide: true },
    handler: async () => app.swagger(),
  });
};

export default opsRoutes;
