import Fastify from 'fastify';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { applyHttpTimeouts, clientErrorHandler, problems, sendProblem } from '@gsp/service-kit';
import type { TunnelAgentConfig } from './config.js';
import { kubeTarget } from './kube.js';
import { startAgent } from './agent.js';
import { agentMetrics } from './metrics.js';
import type { TunnelAgent } from './agent.js';
import { AGENT_PORT_DOCUMENT, HEALTH, NOT_READY, READY } from './openapi.js';

export interface AgentApp {
  /** `/healthz` (the process runs), `/readyz` (the tunnel is connected), `/metrics` (Prometheus) and `/openapi.json`. */
  app: FastifyInstance;
  agent: TunnelAgent;
  close(): Promise<void>;
}

/** The agent and its health endpoints; the agent starts dialling at once. */
export async function buildAgentApp(
  config: TunnelAgentConfig,
  logger: FastifyServerOptions['logger'] = { level: config.logLevel },
): Promise<AgentApp> {
  const app = Fastify({
    logger,
    // A path Fastify cannot decode (`/%zz`) and bytes that are not HTTP get problem+json like the rest
    // (answered here: this reply was made before the problems handler was registered).
    frameworkErrors: (error, request, reply) => sendProblem(request, reply, error.statusCode ?? 400, error.message),
    clientErrorHandler,
  });
  applyHttpTimeouts(app.server, config.http);
  await app.register(problems, { ownCodePrefix: 'AGENT_' });
  const kube = await kubeTarget(config.kube, config.kubeRequestTimeoutMs);
  // The gauge reads the agent at scrape time, after it exists.
  const metrics = agentMetrics(() => agent.connected);
  const agent = startAgent({ ...config, kube, log: app.log, events: metrics.events });
  app.get('/healthz', { schema: { response: { 200: HEALTH } } }, async () => ({ status: 'ok' }));
  app.get('/metrics', async (_request, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
  app.get('/readyz', { schema: { response: { 200: READY, 503: NOT_READY } } }, async (request, reply) => {
    if (agent.connected) return { connected: true, attempts: agent.attempts };
    // The operator reading a failed probe learns why from the body: the proxy's refusal, or the dial's error.
    const why =
      agent.lastError === undefined ? 'no attempt has failed yet' : `its last failure: ${agent.lastError.rawMessage}`;
    return reply
      .code(503)
      .header('retry-after', '2')
      .type('application/problem+json')
      .send({
        type: 'urn:gsp:problem:service-unavailable',
        title: 'Service Unavailable',
        status: 503,
        detail: `the tunnel to the cluster proxy is not connected after ${agent.attempts} ${agent.attempts === 1 ? 'attempt' : 'attempts'}; ${why}`,
        requestId: request.id,
        connected: false,
        attempts: agent.attempts,
      });
  });
  app.get('/openapi.json', async () => AGENT_PORT_DOCUMENT);
  return {
    app,
    agent,
    async close() {
      await Promise.all([agent.stop(), app.close()]);
      await kube.close();
    },
  };
}
