import { runService } from '@gsp/service-kit';
import { loadConfig } from './config.js';
import { buildAgentApp } from './app.js';

await runService(
  'tunnel-agent',
  () => loadConfig(),
  async (config) => {
    const agent = await buildAgentApp(config);
    await agent.app.listen({ port: config.port, host: config.host });
    return { close: () => agent.close(), log: agent.app.log };
  },
  { ports: (config) => ({ PORT: config.port }) },
);
