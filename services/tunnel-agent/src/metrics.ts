import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { AgentEvents } from './agent.js';

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

export function createMetrics(connected: () => boolean): AgentMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  new Gauge({
    name: 'gsp_agent_connected',
    help: '1 while the tunnel to the cluster proxy is up',
    registers,
    collect() {
      this.set(connected() ? 1 : 0);
    },
  });
  return {
    registry,
    responses: new Counter({
      name: 'gsp_agent_responses_total',
      help: 'Requests from the tunnel answered by the API server, by status',
      labelNames: ['code'],
      registers,
    }),
    failures: new Counter({
      name: 'gsp_agent_request_failures_total',
      help: 'Requests from the tunnel that got no answer from the API server',
      registers,
    }),
    endings: new Counter({
      name: 'gsp_agent_tunnel_endings_total',
      help: 'Tunnel connections and attempts that ended, by Connect code (ok: closed by the proxy)',
      labelNames: ['code'],
      registers,
    }),
    pauses: new Counter({
      name: 'gsp_agent_stream_pauses_total',
      help: 'Streams the proxy paused because its kubectl client read slowly',
      registers,
    }),
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
