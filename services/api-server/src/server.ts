import { runHttpService } from '@gsp/service-kit';
import { buildApp } from './app.js';
import { loadConfig } from './config/index.js';

await runHttpService(
  'api-server',
  () => loadConfig(),
  (config) => buildApp(config),
);
