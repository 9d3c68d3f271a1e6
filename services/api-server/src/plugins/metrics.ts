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
    // Not async: a hook that returns a promise costs every request a promise and a microtask.
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.requests.record(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  },
  { name: 'metrics' },
);
