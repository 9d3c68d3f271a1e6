import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ServiceUnavailable } from '../../errors.js';

const opsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // Probes are neither authenticated, audited nor rate limited.
  const config = { public: true, audit: false, rateLimit: false as const };
  app.get(
    '/healthz',
    { config, schema: { tags: ['operations'], response: { 200: Type.Object({ status: Type.Literal('ok') }) } } },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/readyz',
    {
      config: { ...config, errors: [503] },
      schema: { tags: ['operations'], response: { 200: Type.Object({ status: Type.Literal('ready') }) } },
    },
    async () => {
      if (!app.apikeys.ready) throw new ServiceUnavailable('the API key index has not been loaded from Kubernetes yet');
      if (!app.profiles.ready) throw new ServiceUnavailable('the profiles have not been loaded from Kubernetes yet');
      if (!app.agones.gameServers.ready || !app.agones.fleets.ready)
        throw new ServiceUnavailable('the Agones game servers and fleets have not been loaded from Kubernetes yet');
      return { status: 'ready' as const };
    },
  );
  app.get('/openapi.json', { config, schema: { hide: true } }, async () => app.swagger());
};

export default opsRoutes;
