import fp from 'fastify-plugin';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry;
  }
}

/** Prometheus metrics on a registry of this app's own, so several apps can share a process. */
export default fp(
  async (app) => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    // `gsp_api_` like the other services' `gsp_cp_`, `gsp_proxy_`, `gsp_agent_`; `code` like the control plane's.
    const requests = new Counter({
      name: 'gsp_api_requests_total',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'code'],
      registers: [registry],
    });
    const duration = new Histogram({
      name: 'gsp_api_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });
    app.decorate('metrics', registry);
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      requests.inc({ method: request.method, route, code: String(reply.statusCode) });
      duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    });
  },
  { name: 'metrics' },
);
