import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Why a request was refused before its route ran: the credential that failed, none, or the failure limit. */
export type AuthFailure = 'apikey' | 'bearer' | 'basic' | 'missing' | 'blocked';

/** What an operator watches on the control plane, on a registry of its own. */
export interface ControlPlaneMetrics {
  registry: Registry;
  /** Requests by method, route template (never the raw path) and status. */
  requests: Counter<'method' | 'route' | 'code'>;
  duration: Histogram<'route'>;
  authFailures: Counter<'reason'>;
}

export interface MetricsSources {
  /** API keys in the informer's index. */
  apiKeys(): number;
  /** Whether the informer has listed the key Secrets since it started. */
  apiKeysSynced(): boolean;
}

export function createMetrics(sources: MetricsSources): ControlPlaneMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  new Gauge({
    name: 'gsp_cp_api_keys',
    help: 'API keys known to this replica (the informer index of key Secrets)',
    registers,
    collect() {
      this.set(sources.apiKeys());
    },
  });
  new Gauge({
    name: 'gsp_cp_api_keys_synced',
    help: '1 once the API-key informer has listed the key Secrets, else 0 (keys are refused until then)',
    registers,
    collect() {
      this.set(sources.apiKeysSynced() ? 1 : 0);
    },
  });
  return {
    registry,
    requests: new Counter({
      name: 'gsp_cp_requests_total',
      help: 'Requests by method, route template and status (health probes excepted)',
      labelNames: ['method', 'route', 'code'],
      registers,
    }),
    duration: new Histogram({
      name: 'gsp_cp_request_duration_seconds',
      help: 'Time from request to response, by route template',
      labelNames: ['route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    authFailures: new Counter({
      name: 'gsp_cp_auth_failures_total',
      help: 'Requests refused by authentication: by the credential that failed (apikey, bearer, basic), missing, or blocked by the failed sign-in limit',
      labelNames: ['reason'],
      registers,
    }),
  };
}
