import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ServiceUnavailable } from '../../errors.js';

const opsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const config = { public: true };
  const hide = { hide: true };

  app.get('/healthz', { config, schema: { tags: ['operations'], response: { 200: Type.Object({ status: Type.Literal('ok') }) } } }, async () => ({ status: 'ok' as const }));

  app.get('/readyz', { config, schema: { tags: ['operations'] } }, async () => {
    try {
      await app.pg.query('SELECT 1');
    } catch {
      throw new ServiceUnavailable('the database cannot be reached');
    }
    return { status: 'ready' };
  });

  app.get('/metrics', { config, schema: hide }, async (_request, reply) => {
    return reply.type(app.metrics.contentType).send(await app.metrics.metrics());
  });

  app.get('/openapi.json', { config, schema: hide }, async () => app.swagger());
};

export default opsRoutes;
