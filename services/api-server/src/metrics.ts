import { createServiceMetrics } from '@gsp/service-kit';
import type { RequestMetrics } from '@gsp/service-kit';
import type { Registry } from 'prom-client';

/**
 * What an operator watches on the API server, on a registry of its own (so several apps can share
 * a process); the flags client adds its `gsp_flags_*` to the same registry. Served on METRICS_PORT.
 */
export interface ApiMetrics {
  registry: Registry;
  /**
   * Requests by method, route template (never the raw path) and status
   * (`gsp_api_requests_total`), and their latency by method and route
   * (`gsp_api_request_duration_seconds`).
   */
  requests: RequestMetrics;
}

export function createApiMetrics(): ApiMetrics {
  // `gsp_api_` like the other services' `gsp_cp_`, `gsp_proxy_`, `gsp_agent_`; `code` like the control plane's.
  const metrics = createServiceMetrics('gsp_api');
  const requests = metrics.httpRequests({
    requestsHelp: 'HTTP requests by method, route template and status',
    durationHelp: 'HTTP request latency by route',
    durationBy: 'method-route',
  });
  return { registry: metrics.registry, requests };
}
