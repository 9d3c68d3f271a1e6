import { createServiceMetrics } from '@gsp/service-kit';
import type { Counter, Registry } from 'prom-client';

/** Why a request was refused before its route ran: the credential that failed, none, or the failure limit. */
export type AuthFailure = 'apikey' | 'bearer' | 'basic' | 'session' | 'missing' | 'blocked';

/** What an operator watches on the control plane, on a registry of its own. */
export interface ControlPlaneMetrics {
  registry: Registry;
  /** Requests by method, route template (never the raw path) and status (`gsp_cp_requests_total`). */
  requests: { inc(labels: { method: string; route: string; code: number }): void };
  /** Their latency by route template (`gsp_cp_request_duration_seconds`). */
  duration: { observe(labels: { route: string }, seconds: number): void };
  authFailures: Counter<'reason'>;
}

export interface MetricsSources {
  /** API keys in the informer's index. */
  apiKeys(): number;
  /** Whether the informer has listed the key Secrets since it started. */
  apiKeysSynced(): boolean;
}

export function createMetrics(sources: MetricsSources): ControlPlaneMetrics {
  const metrics = createServiceMetrics('gsp_cp');
  metrics.gauge('api_keys', 'API keys known to this replica (the informer index of key Secrets)', function () {
    this.set(sources.apiKeys());
  });
  metrics.gauge(
    'api_keys_synced',
    '1 once the API-key informer has listed the key Secrets, else 0 (keys are refused until then)',
    function () {
      this.set(sources.apiKeysSynced() ? 1 : 0);
    },
  );
  const requests = metrics.httpRequests({
    requestsHelp: 'Requests by method, route template and status (health probes excepted)',
    durationHelp: 'Time from request to response, by route template',
    durationBy: 'route',
  });
  return {
    registry: metrics.registry,
    requests: { inc: ({ method, route, code }) => requests.count(method, route, code) },
    duration: { observe: ({ route }, seconds) => requests.observe('', route, seconds) },
    authFailures: metrics.counter(
      'auth_failures_total',
      'Requests refused by authentication: ' +
        'by the credential that failed (apikey, bearer, basic, an ended panel session), missing, ' +
        'or blocked by the failed sign-in limit',
      ['reason'],
    ),
  };
}
