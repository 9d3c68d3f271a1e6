import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ServiceUnavailable } from '../../errors.js';

const opsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // Probes are neither authenticated, audited nor rate limited.
  const config = { public: true, audit: false, rateLimit: false as const };
  app.get('/healthz', { config, schema: { tags: ['operations'], response: { 200: Type.Object({ status: Type.Literal('ok') }) } } }, async () => ({ status: 'ok' as const }));
  app.get('/readyz', { config, schema: { tags: ['operations'] } }, async () => {
    if (!app.apikeys.ready) throw new ServiceUnavailable('the API key index has not been loaded from Kubernetes yet');
    return { status: 'ready' };
  });
  app.get('/openapi.json', { config, schema: { hide: true } }, async () => app.swagger());
};

export default opsRoutes;
