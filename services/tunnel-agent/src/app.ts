import Fastify from 'fastify';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { TunnelAgentConfig } from './config.js';
import { kubeTarget } from './kube.js';
import { startAgent } from './agent.js';
import { agentMetrics } from './metrics.js';
import type { TunnelAgent } from './agent.js';

export interface AgentApp {
  /** `/healthz` (the process runs), `/readyz` (the tunnel is connected) and `/metrics` (Prometheus). */
  app: FastifyInstance;
  agent: TunnelAgent;
  close(): Promise<void>;
}

/** The agent and its health endpoints; the agent starts dialling at once. */
export async function buildAgentApp(config: TunnelAgentConfig, logger: FastifyServerOptions['logger'] = { level: config.logLevel }): Promise<AgentApp> {
  const app = Fastify({ logger });
  const kube = await kubeTarget(config.kube);
  // The gauge reads the agent at scrape time, after it exists.
  const metrics = agentMetrics(() => agent.connected);
  const agent = startAgent({ ...config, kube, log: app.log, events: metrics.events });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/metrics', async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()));
  app.get('/readyz', async (_request, reply) => reply.code(agent.connected ? 200 : 503).send({ connected: agent.connected, attempts: agent.attempts }));
  return {
    app,
    agent,
    async close() {
      await Promise.all([agent.stop(), app.close()]);
      await kube.close();
    },
  };
}
