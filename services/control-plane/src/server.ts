import { runService, serveMetrics } from '@gsp/service-kit';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';

await runService(
  'control-plane',
  () => loadConfig(),
  async (config) => {
    const app = await buildApp(config);
    await app.listen({ port: config.port, host: config.host });
    const metrics = await serveMetrics(app.metrics.registry, config.metricsPort, config.host, { http: config.http });
    app.log.info({ url: metrics.url }, 'metrics served');
    return {
      close: async () => {
        await Promise.all([app.close(), metrics.close()]);
      },
      log: app.log,
    };
  },
  { ports: (config) => ({ PORT: config.port, METRICS_PORT: config.metricsPort }) },
);
