import https from 'node:https';
import http from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { Pool } from 'undici';
import { KUBE_REQUEST_TIMEOUT_MS } from './config.js';
import type { TunnelAgentConfig } from './config.js';

/** The narrow view of the agent's own cluster the tunnel needs: where, and with which credentials. */
export interface KubeTarget {
  /** The API server URL, without a trailing slash. */
  base: URL;
  /** Request options carrying the agent's credentials (headers, certificates, agent), for upgrades. */
  options: https.RequestOptions;
  /** Keep-alive connections to the API server for plain requests (undici: a third of node:http's CPU per request). */
  pool: Pool;
  /** The agent's credential headers as a flat `[name, value, ...]` list, kept current. */
  credentials: string[];
  /** How long the API server may take to answer a request's headers; streaming bodies are not bounded. */
  requestTimeoutMs: number;
  close(): Promise<void>;
}

/** How often credentials are re-read: a projected service-account token is rotated by the kubelet. */
const CREDENTIAL_REFRESH_MS = 60_000;

const flatten = (headers: https.RequestOptions['headers']): string[] => {
  const flat: string[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) flat.push(name.toLowerCase(), String(v));
  }
  return flat;
};

/**
 * The one place a KubeConfig is built: from KUBE_API_URL and credentials, or in-cluster.
 * `requestTimeoutMs` bounds the wait for an answer's headers (KUBE_REQUEST_TIMEOUT).
 */
export async function kubeTarget(
  config: TunnelAgentConfig['kube'],
  requestTimeoutMs = KUBE_REQUEST_TIMEOUT_MS,
): Promise<KubeTarget> {
  const kc = new KubeConfig();
  if (config === undefined) kc.loadFromCluster();
  else {
    kc.loadFromOptions({
      clusters: [
        {
          name: 'target',
          server: config.url,
          caFile: config.caFile,
          skipTLSVerify: config.insecureSkipTlsVerify || config.url.startsWith('http:'),
        },
      ],
      users: [{ name: 'agent', token: config.token, certFile: config.clientCertFile, keyFile: config.clientKeyFile }],
      contexts: [{ name: 'target', cluster: 'target', user: 'agent' }],
      currentContext: 'target',
    });
  }
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('the Kubernetes configuration names no API server');
  const options: https.RequestOptions = { headers: {} };
  await kc.applyToHTTPSOptions(options);
  const base = new URL(server.replace(/\/+$/, ''));
  const tls = { ca: options.ca, cert: options.cert, key: options.key, rejectUnauthorized: options.rejectUnauthorized };
  options.agent =
    base.protocol === 'https:' ? new https.Agent({ keepAlive: true, ...tls }) : new http.Agent({ keepAlive: true });
  const pool = new Pool(base.origin, {
    connect: base.protocol === 'https:' ? tls : undefined,
    // Watches and `logs -f` may stay silent for many minutes; the API server ends them itself.
    bodyTimeout: 0,
    // A stalled API server would otherwise hold kubectl for undici's default five minutes.
    headersTimeout: requestTimeoutMs,
  });
  const credentials = flatten(options.headers);
  const target: KubeTarget = { base, options, pool, credentials, requestTimeoutMs, close: async () => undefined };
  // A token file (in-cluster) is re-read by client-node when older than a minute; pick up the new one.
  const timer = setInterval(() => {
    const fresh: https.RequestOptions = { headers: {} };
    kc.applyToHTTPSOptions(fresh).then(
      () => {
        options.headers = fresh.headers;
        target.credentials = flatten(fresh.headers);
      },
      () => undefined,
    );
  }, CREDENTIAL_REFRESH_MS);
  timer.unref();
  // Requests still open are cut, not awaited: a watch has no end of its own (bodyTimeout 0), and by
  // now the tunnels that would carry its answers are closed.
  target.close = async () => {
    clearInterval(timer);
    (options.agent as http.Agent).destroy();
    await pool.destroy();
  };
  return target;
}
