import Fastify from 'fastify';
import { loadConfig } from './config.js';
import { kubeTarget } from './kube.js';
import { startAgent } from './agent.js';

const config = loadConfig();
const app = Fastify({ logger: { level: config.logLevel } });
const agent = startAgent({ ...config, kube: await kubeTarget(config.kube), log: app.log });
app.get('/healthz', async () => ({ status: 'ok' }));
app.get('/readyz', async (_request, reply) => reply.code(agent.connected ? 200 : 503).send({ connected: agent.connected }));
await app.listen({ port: config.port, host: config.host });

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    void Promise.all([agent.stop(), app.close()]).then(() => (process.exitCode = 0));
  });
}
