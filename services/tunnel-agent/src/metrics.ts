import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { TunnelAgent } from './agent.js';
import type { AgentEvents } from './events.js';

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
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  new Gauge({
    name: 'gsp_agent_connected',
    help: '1 while at least one tunnel to the cluster proxy is up',
    registers,
    collect() {
      this.set(agent().connected ? 1 : 0);
    },
  });
  new Gauge({
    name: 'gsp_agent_tunnels',
    help: 'Tunnels open to proxy replicas, by state (draining: the replica is shutting down)',
    labelNames: ['state'],
    registers,
    collect() {
      const { tunnels, replicas } = agent();
      this.set({ state: 'serving' }, replicas.length);
      this.set({ state: 'draining' }, tunnels - replicas.length);
    },
  });
  new Gauge({
    name: 'gsp_agent_tunnels_target',
    help: 'How many distinct proxy replicas the agent aims to hold a tunnel to (the count they announce)',
    registers,
    collect() {
      this.set(agent().target);
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
