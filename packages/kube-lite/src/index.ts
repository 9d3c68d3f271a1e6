/**
 * @gsp/kube-lite: a Kubernetes-API-compatible server for local runs and tests.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { stringify as toYaml } from 'yaml';
import { startAgones } from './agones/index.js';
import { Api } from './api/api.js';
import { Consoles } from './container/console.js';
import { startBuiltinControllers } from './controllers/builtin.js';
import { describePod } from './controllers/describe-pod.js';
import { Timers, typeOf } from './controllers/loop.js';
import { Router } from './server.js';
import { Store } from './api/store.js';
import { generateSelfSignedCertificate } from '@gsp/service-kit';

/**
 * The API server (Go's net/http) reads a request line and headers up to 1 MiB; Node's default,
 * 16 KiB, would refuse an exec whose argv (in the query) a cluster takes.
 */
const MAX_HEADER_BYTES = 1024 * 1024;

export {
  findHelm,
  findKubectl,
  ToolNotFoundError,
  MIN_KUBECTL_MINOR,
  type FindToolOptions,
  type ToolName,
} from './tools.js';
export {
  parseLabelSelector,
  matchesLabels,
  parseFieldSelector,
  SelectorError,
  type LabelSelector,
  type Requirement,
  type Operator,
} from './api/selectors.js';
export {
  dns1123LabelErrors,
  dns1123SubdomainErrors,
  dns1035LabelErrors,
  qualifiedNameErrors,
  labelValueErrors,
} from './api/validation.js';
export { RESOURCE_TYPES, type ResourceType, type KubeObject } from './api/registry.js';

export interface KubeLiteOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Persist objects to `<dataDir>/state.json` and write the kubeconfig there. Default: memory only. */
  dataDir?: string;
  /** Serve HTTPS with a freshly generated self-signed certificate (trusted by the kubeconfig). */
  tls?: boolean;
  /** Accept only this bearer token. Default: any request is accepted. */
  token?: string;
  /** Delay between simulated controller steps (pod start, GameServer states). Default 150 ms. */
  stepMs?: number;
  /** How often watches that allow bookmarks get one. Default 5000 ms. */
  bookmarkIntervalMs?: number;
  /** Watch events kept for resuming watches (older ones answer 410 Expired). Default 10000. */
  historySize?: number;
}

export interface KubeLite {
  /** Base URL, such as `http://127.0.0.1:43121`. */
  url: string;
  /** A kubeconfig file usable with `kubectl --kubeconfig`. */
  kubeconfigPath: string;
  /** The same configuration for `@kubernetes/client-node`. */
  kubeConfig: KubeConfig;
  /** The current global resourceVersion. */
  resourceVersion: () => number;
  /** Forgets the watch history, so watches from any earlier resourceVersion get 410 Expired. */
  compactHistory: () => void;
  /** Ends all open watches, as an API server does when a watch times out; for testing clients' resume logic. */
  endWatches: () => void;
  /** Stops serving, ends open watches and exec sessions, and saves state. */
  close: () => Promise<void>;
}

export async function startKubeLite(options: KubeLiteOptions = {}): Promise<KubeLite> {
  const host = options.host ?? '127.0.0.1';
  const store = new Store({ dataDir: options.dataDir, historySize: options.historySize });
  const api = new Api(store);
  const consoles = new Consoles();
  const timers = new Timers();
  const stepMs = options.stepMs ?? 150;

  for (const name of ['default', 'kube-system', 'kube-public']) {
    if (!store.get('/namespaces', undefined, name))
      api.create(typeOf('', 'namespaces'), undefined, { metadata: { name } });
  }

  let url = '';
  const router = new Router({
    api,
    consoles,
    token: options.token,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 5000,
    serverAddress: () => new URL(url).host,
    describePod: (ns, name) => describePod(api, ns, name),
  });
  const stopBuiltins = startBuiltinControllers({ api, consoles, timers, stepMs });
  const agones = startAgones({ api, consoles, timers, stepMs });
  router.allocate = agones.allocate;

  const certificate = options.tls ? generateSelfSignedCertificate('kube-lite') : undefined;
  const server: Server = certificate
    ? createHttpsServer(
        { cert: certificate.cert, key: certificate.key, maxHeaderSize: MAX_HEADER_BYTES },
        router.handle,
      )
    : createHttpServer({ maxHeaderSize: MAX_HEADER_BYTES }, router.handle);
  server.on('upgrade', router.upgrade);
  server.keepAliveTimeout = 60_000;
  const port = await listen(server, options.port ?? 0, host);
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  url = `${certificate ? 'https' : 'http'}://${urlHost}:${port}`;

  const ownTempDir = options.dataDir ? undefined : mkdtempSync(join(tmpdir(), 'kube-lite-'));
  const configDir = options.dataDir ?? (ownTempDir as string);
  mkdirSync(configDir, { recursive: true });
  const kubeconfigPath = join(configDir, 'kubeconfig');
  const kubeconfigText = kubeconfigFor(url, certificate?.cert, options.token ?? 'kube-lite');
  writeFileSync(kubeconfigPath, kubeconfigText, { mode: 0o600 });
  // Loaded on demand: the client is large, and users of the selector or tools helpers need none of it.
  const { KubeConfig: KubeConfigClass } = await import('@kubernetes/client-node');
  const kubeConfig = new KubeConfigClass();
  kubeConfig.loadFromString(kubeconfigText);

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      timers.close();
      stopBuiltins();
      agones.stop();
      router.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      store.close();
      if (ownTempDir) rmSync(ownTempDir, { recursive: true, force: true });
    })();
    return closed;
  };

  return {
    url,
    kubeconfigPath,
    kubeConfig,
    resourceVersion: () => store.resourceVersion,
    compactHistory: () => store.compact(),
    endWatches: () => router.endWatches(),
    close,
  };
}

/** Listens on `port` (0: a free one) and resolves with the port taken. */
async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** A kubeconfig whose one context reaches `url` with `token`, trusting `cert` when it serves HTTPS. */
function kubeconfigFor(url: string, cert: string | undefined, token: string): string {
  const cluster: Record<string, unknown> = { server: url };
  if (cert) cluster['certificate-authority-data'] = Buffer.from(cert).toString('base64');
  // @kubernetes/client-node refuses plain HTTP unless TLS verification is marked as skipped.
  else cluster['insecure-skip-tls-verify'] = true;
  return toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kube-lite', cluster }],
    users: [{ name: 'kube-lite', user: { token } }],
    contexts: [{ name: 'kube-lite', context: { cluster: 'kube-lite', user: 'kube-lite', namespace: 'default' } }],
    'current-context': 'kube-lite',
    preferences: {},
  });
}
