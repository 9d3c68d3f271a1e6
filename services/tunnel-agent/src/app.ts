import Fastify from 'fastify';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import {
  applyHttpTimeouts,
  clientErrorHandler,
  HEALTH_ROUTE,
  maxParamLengthFor,
  problemOf,
  problems,
  sendProblem,
  serveMetrics,
} from '@gsp/service-kit';
import type { TunnelAgentConfig } from './config.js';
import { kubeTarget } from './kube.js';
import { startAgent } from './agent/agent.js';
import { createMetrics, metricEvents } from './agent/metrics.js';
import type { AgentMetrics } from './agent/metrics.js';
import type { TunnelAgent } from './agent/agent.js';
import { AGENT_PORT_DOCUMENT, NOT_READY, READY } from './openapi.js';

/** The longest cluster id the API server registers (its `ClusterParams`). */
const CLUSTER_ID_MAX_LENGTH = 64;

export interface AgentApp {
  /** PORT: `/healthz` (the process runs), `/readyz` (a tunnel is connected) and `/openapi.json`. */
  app: FastifyInstance;
  agent: TunnelAgent;
  metrics: AgentMetrics;
  /** Listens on PORT, and serves `GET /metrics` on METRICS_PORT. */
  listen(): Promise<{ url: string; metricsUrl: string }>;
  /** The graceful stop (SIGTERM): the tunnels drain (within AGENT_DRAIN_GRACE), then everything closes. */
  drain(): Promise<void>;
  /** The fast stop: requests in flight are cut. */
  close(): Promise<void>;
}

/** The agent and its health endpoints; the agent starts dialling at once. */
export async function buildAgentApp(
  config: TunnelAgentConfig,
  logger: FastifyServerOptions['logger'] = { level: config.logLevel },
): Promise<AgentApp> {
  const app = Fastify({
    logger,
    // No route here takes a path parameter; the longest identifier the agent knows is its cluster id.
    routerOptions: { maxParamLength: maxParamLengthFor(CLUSTER_ID_MAX_LENGTH) },
    // A path Fastify cannot decode (`/%zz`) and bytes that are not HTTP get problem+json like the rest
    // (answered here: this reply was made before the problems handler was registered).
    frameworkErrors: (error, request, reply) => sendProblem(request, reply, error.statusCode ?? 400, error.message),
    clientErrorHandler,
  });
  applyHttpTimeouts(app.server, config.http);
  await app.register(problems, { ownCodePrefix: 'AGENT_' });
  const kube = await kubeTarget(config.kube, config.kubeRequestTimeoutMs);
  // The gauge reads the agent at scrape time, after it exists.
  const metrics = createMetrics(() => agent);
  const agent = startAgent({ ...config, kube, log: app.log, events: metricEvents(metrics) });
  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> | undefined;
  app.route(HEALTH_ROUTE);
  app.route({
    method: 'GET',
    url: '/readyz',
    schema: { response: { 200: READY, 503: NOT_READY } },
    handler: async (request, reply) => {
      if (agent.connected)
        return { connected: true, attempts: agent.attempts, tunnels: agent.tunnels, replicas: agent.target };
      // The operator reading a failed probe learns why from the body: the proxy's refusal, or the dial's error.
      const why =
        agent.lastError === undefined ? 'no attempt has failed yet' : `its last failure: ${agent.lastError.rawMessage}`;
      const attempts = `${agent.attempts} ${agent.attempts === 1 ? 'attempt' : 'attempts'}`;
      return reply
        .code(503)
        .header('retry-after', '2')
        .type('application/problem+json')
        .send({
          ...problemOf(request, 503, `the tunnel to the cluster proxy is not connected after ${attempts}; ${why}`),
          connected: false,
          attempts: agent.attempts,
        });
    },
  });
  app.route({ method: 'GET', url: '/openapi.json', handler: async () => AGENT_PORT_DOCUMENT });
  const close = async (): Promise<void> => {
    await Promise.all([agent.stop(0), app.close(), metricsServer?.close()]);
    await kube.close();
  };
  return {
    app,
    agent,
    metrics,
    async listen() {
      const url = await app.listen({ port: config.port, host: config.host });
      metricsServer = await serveMetrics(metrics.registry, config.metricsPort, config.host, { http: config.http });
      return { url, metricsUrl: metricsServer.url };
    },
    async drain() {
      await agent.stop();
      await close();
    },
    close,
  };
}
