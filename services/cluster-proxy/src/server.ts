import { loadConfig } from './config.js';
import { buildClusterProxy } from './proxy.js';

const proxy = await buildClusterProxy(loadConfig());
const { url, tunnelUrl } = await proxy.listen();
proxy.app.log.info({ url, tunnelUrl }, 'cluster proxy listening (kubectl on PORT, agents on TUNNEL_PORT)');

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    proxy.close().then(
      () => (process.exitCode = 0),
      (err: unknown) => {
        proxy.app.log.error({ err }, 'shutdown failed');
        process.exitCode = 1;
      },
    );
  });
}
