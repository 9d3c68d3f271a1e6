import { runService } from '@gsp/service-kit';
import { loadConfig } from './config.js';
import { buildAgentApp } from './app.js';

await runService(
  'tunnel-agent',
  () => loadConfig(),
  async (config) => {
    const agent = await buildAgentApp(config);
    const { url, metricsUrl } = await agent.listen();
    agent.app.log.info({ url, metricsUrl }, 'tunnel agent listening (probes on PORT, Prometheus on METRICS_PORT)');
    return {
      close: () => agent.close(),
      // SIGTERM: every tunnel is drained (the proxy sends no new request on it), its requests finish,
      // all by AGENT_DRAIN_GRACE; closing the ports and the pool after it takes milliseconds.
      drain: () => agent.drain(),
      drainDeadlineMs: config.drainGraceMs + 2000,
      log: agent.app.log,
    };
  },
  { ports: (config) => ({ PORT: config.port, METRICS_PORT: config.metricsPort }) },
);
