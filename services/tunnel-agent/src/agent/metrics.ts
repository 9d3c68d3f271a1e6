import { createServiceMetrics } from '@gsp/service-kit';
import type { Counter, Registry } from 'prom-client';
import type { TunnelAgent } from './agent.js';
import type { AgentEvents } from '../events.js';

/** What an operator watches on the agent, on a registry of its own. */
export interface AgentMetrics {
  registry: Registry;
  /** Requests from the tunnel the API server answered, by status (101 for an upgrade). */
  responses: Counter<'code'>;
  /** Requests from the tunnel that got no answer from the API server. */
  failures: Counter;
  /** Tunnel connections and attempts that ended, by Connect code (`ok`: closed by the proxy). */
  endings: Counter<'code'>;
  /** Streams the proxy paused because its kubectl client read slowly. */
  pauses: Counter;
}

/** `agent` is read at scrape time. */
export function createMetrics(
  agent: () => Pick<TunnelAgent, 'connected' | 'tunnels' | 'replicas' | 'target'>,
): AgentMetrics {
  const metrics = createServiceMetrics('gsp_agent');
  metrics.gauge('connected', '1 while at least one tunnel to the cluster proxy is up', function () {
    this.set(agent().connected ? 1 : 0);
  });
  metrics.gauge(
    'tunnels',
    'Tunnels open to proxy replicas, by state (draining: the replica is shutting down)',
    function () {
      const { tunnels, replicas } = agent();
      this.set({ state: 'serving' }, replicas.length);
      this.set({ state: 'draining' }, tunnels - replicas.length);
    },
    ['state'],
  );
  metrics.gauge(
    'tunnels_target',
    'How many distinct proxy replicas the agent aims to hold a tunnel to (the count they announce)',
    function () {
      this.set(agent().target);
    },
  );
  return {
    registry: metrics.registry,
    responses: metrics.counter('responses_total', 'Requests from the tunnel answered by the API server, by status', [
      'code',
    ]),
    failures: metrics.counter(
      'request_failures_total',
      'Requests from the tunnel that got no answer from the API server',
    ),
    endings: metrics.counter(
      'tunnel_endings_total',
      'Tunnel connections and attempts that ended, by Connect code (ok: closed by the proxy)',
      ['code'],
    ),
    pauses: metrics.counter('stream_pauses_total', 'Streams the proxy paused because its kubectl client read slowly'),
  };
}

/** The agent's events, counted. */
export function metricEvents(metrics: AgentMetrics): AgentEvents {
  return {
    response: (status) => metrics.responses.inc({ code: status }),
    failure: () => metrics.failures.inc(),
    ended: (code) => metrics.endings.inc({ code }),
    pause: () => metrics.pauses.inc(),
  };
}
