import { runService } from '@gsp/service-kit';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';

await runService(
  'api-server',
  () => loadConfig(),
  async (config) => {
    const app = await buildApp(config);
    await app.listen({ port: config.port, host: config.host });
    return { close: () => app.close(), log: app.log };
  },
  { ports: (config) => ({ PORT: config.port }) },
);
