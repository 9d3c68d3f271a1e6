import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * What an operator watches on the API server, on a registry of its own (so several apps can share
 * a process); the flags client adds its `gsp_flags_*` to the same registry. Served on METRICS_PORT.
 */
export interface ApiMetrics {
  registry: Registry;
  /** Requests by method, route template (never the raw path) and status. */
  requests: Counter<'method' | 'route' | 'code'>;
  duration: Histogram<'method' | 'route'>;
}

export function createApiMetrics(): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  // `gsp_api_` like the other services' `gsp_cp_`, `gsp_proxy_`, `gsp_agent_`; `code` like the control plane's.
  return {
    registry,
    requests: new Counter({
      name: 'gsp_api_requests_total',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'code'],
      registers,
    }),
    duration: new Histogram({
      name: 'gsp_api_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
  };
}
