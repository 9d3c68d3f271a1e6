import Fastify from 'fastify';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { TunnelAgentConfig } from './config.js';
import { kubeTarget } from './kube.js';
import { startAgent } from './agent.js';
import type { TunnelAgent } from './agent.js';

export interface AgentApp {
  /** `/healthz` (the process runs) and `/readyz` (the tunnel is connected). */
  app: FastifyInstance;
  agent: TunnelAgent;
  close(): Promise<void>;
}

/** The agent and its health endpoints; the agent starts dialling at once. */
export async function buildAgentApp(config: TunnelAgentConfig, logger: FastifyServerOptions['logger'] = { level: config.logLevel }): Promise<AgentApp> {
  const app = Fastify({ logger });
  const agent = startAgent({ ...config, kube: await kubeTarget(config.kube), log: app.log });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => reply.code(agent.connected ? 200 : 503).send({ connected: agent.connected, attempts: agent.attempts }));
  return {
    app,
    agent,
    async close() {
      await Promise.all([agent.stop(), app.close()]);
    },
  };
}
