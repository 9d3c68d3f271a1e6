import fp from 'fastify-plugin';
import { createApiMetrics } from '../metrics.js';
import type { ApiMetrics } from '../metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: ApiMetrics;
  }
}

/** Counts and times every request by route template; server.ts serves the registry on METRICS_PORT. */
export default fp(
  async (app) => {
    const metrics = createApiMetrics();
    app.decorate('metrics', metrics);
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.requests.inc({ method: request.method, route, code: String(reply.statusCode) });
      metrics.duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    });
  },
  { name: 'metrics' },
);
