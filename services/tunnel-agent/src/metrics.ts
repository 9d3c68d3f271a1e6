import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { AgentEvents } from './agent.js';

/** The agent's Prometheus metrics, fed by its events, on a registry of its own. */
export function agentMetrics(connected: () => boolean): { registry: Registry; events: AgentEvents } {
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
  const responses = new Counter({
    name: 'gsp_agent_responses_total',
    help: 'Requests from the tunnel answered by the API server, by status',
    labelNames: ['code'],
    registers,
  });
  const failures = new Counter({
    name: 'gsp_agent_request_failures_total',
    help: 'Requests from the tunnel that got no answer from the API server',
    registers,
  });
  const endings = new Counter({
    name: 'gsp_agent_tunnel_endings_total',
    help: 'Tunnel connections and attempts that ended, by Connect code (ok: closed by the proxy)',
    labelNames: ['code'],
    registers,
  });
  const pauses = new Counter({
    name: 'gsp_agent_stream_pauses_total',
    help: 'Streams the proxy paused because its kubectl client read slowly',
    registers,
  });
  return {
    registry,
    events: {
      response: (status) => responses.inc({ code: status }),
      failure: () => failures.inc(),
      ended: (code) => endings.inc({ code }),
      pause: () => pauses.inc(),
    },
  };
}
