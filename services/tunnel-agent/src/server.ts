import { loadConfig } from './config.js';
import { buildAgentApp } from './app.js';

const config = loadConfig();
const { app, close } = await buildAgentApp(config);
await app.listen({ port: config.port, host: config.host });

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    void close().then(() => (process.exitCode = 0));
  });
}
