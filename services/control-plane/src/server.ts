import { runHttpService } from '@gsp/service-kit';
import { buildApp } from './app.js';
import { loadConfig } from './config/index.js';

await runHttpService(
  'control-plane',
  () => loadConfig(),
  (config) => buildApp(config),
);
