/**
 * `kube-lite --port 6443 [--host 127.0.0.1] [--data-dir DIR] [--tls] [--token TOKEN]`
 */
import { parseArgs } from 'node:util';
import { startKubeLite } from './index.js';

const USAGE = `usage: kube-lite [--port 6443] [--host 127.0.0.1] [--data-dir DIR] [--tls] [--token TOKEN]

A Kubernetes-API-compatible server for local runs and tests (not a real cluster).
  --port      TCP port, 0 picks a free one (default 6443)
  --host      interface to listen on (default 127.0.0.1)
  --data-dir  keep objects in DIR/state.json and write DIR/kubeconfig (default: memory, temp kubeconfig)
  --tls       serve HTTPS with a generated self-signed certificate
  --token     accept only this bearer token (default: accept any request)`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '6443' },
      host: { type: 'string', default: '127.0.0.1' },
      'data-dir': { type: 'string' },
      tls: { type: 'boolean', default: false },
      token: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`kube-lite: --port must be an integer from 0 to 65535, got "${values.port}"\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const kube = await startKubeLite({
    port,
    host: values.host,
    dataDir: values['data-dir'],
    tls: values.tls,
    token: values.token,
  });
  console.log(`kube-lite listening on ${kube.url}`);
  console.log(`kubeconfig: ${kube.kubeconfigPath}`);
  // The pinned kubectl (this package's bin), as npm start's banner says: the machine's may be Debian's 1.20.
  console.log(`try: npx gsp-kubectl --kubeconfig ${kube.kubeconfigPath} get namespaces`);
  const stop = (): void => {
    kube.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(`kube-lite: ${(err as Error).message}`);
  process.exitCode = 1;
});
