import { runService } from '@gsp/service-kit';
import { loadConfig } from './config.js';
import { buildClusterProxy } from './proxy/proxy.js';

await runService(
  'cluster-proxy',
  () => loadConfig(),
  async (config) => {
    const proxy = await buildClusterProxy(config);
    const { url, tunnelUrl, metricsUrl } = await proxy.listen();
    proxy.app.log.info(
      { url, tunnelUrl, metricsUrl },
      'cluster proxy listening (kubectl on PORT, agents on TUNNEL_PORT, Prometheus on METRICS_PORT)',
    );
    return {
      close: () => proxy.close(),
      // SIGTERM: unready, agents told, in-flight requests finish within DRAIN_GRACE, then the close.
      drain: () => proxy.drain(),
      drainDeadlineMs: config.drainGraceMs + 10_000,
      log: proxy.app.log,
    };
  },
  { ports: (config) => ({ PORT: config.port, TUNNEL_PORT: config.tunnelPort, METRICS_PORT: config.metricsPort }) },
);
