import {
  booleanVar,
  ConfigError,
  durationVar,
  httpTimeouts,
  nonEmpty,
  parsePort,
  parseUrl,
  readFileVar,
  readSecret,
  required,
} from '@gsp/service-kit';
import type { Env, HttpTimeouts } from '@gsp/service-kit';

export interface TunnelAgentConfig {
  proxyTunnelUrl: string;
  /** PEM CA bundle trusted for an https: PROXY_TUNNEL_URL, beside the system's. */
  proxyCa: string | undefined;
  clusterId: string;
  agentToken: string;
  /** Unset: in-cluster config (service account). */
  kube:
    | {
        url: string;
        token: string | undefined;
        clientCertFile: string | undefined;
        clientKeyFile: string | undefined;
        caFile: string | undefined;
        insecureSkipTlsVerify: boolean;
      }
    | undefined;
  backoffInitialMs: number;
  backoffMaxMs: number;
  /** A connection that stayed up this long resets the backoff. */
  backoffResetMs: number;
  /** While it holds a tunnel to as many replicas as announced, the agent checks again this often. */
  syncIntervalMs: number;
  /** On stop, a tunnel whose requests have not finished within this long is closed anyway. */
  drainGraceMs: number;
  /** How often the tunnel is pinged; no answer within half of it ends the connection and the agent redials. */
  pingIntervalMs: number;
  /** A dial to the proxy (TCP and TLS) not complete within this long is abandoned and retried. */
  connectTimeoutMs: number;
  /** The API server's answer headers not come within this long: kubectl gets a 504 `Status`. */
  kubeRequestTimeoutMs: number;
  /** How long a client of PORT (probes) or METRICS_PORT (Prometheus) may take to send its request. */
  http: HttpTimeouts;
  port: number;
  /** Plain HTTP, `GET /metrics` only (Prometheus). */
  metricsPort: number;
  host: string;
  logLevel: string;
}

/** Default of KUBE_REQUEST_TIMEOUT: kube-apiserver answers 504 itself after its own one-minute request timeout. */
export const KUBE_REQUEST_TIMEOUT_MS = 60_000;

const HTTP = ['http:', 'https:'];

export function loadConfig(env: Env = process.env): TunnelAgentConfig {
  const proxyTunnelUrl = required(
    parseUrl(env, 'PROXY_TUNNEL_URL', HTTP),
    'PROXY_TUNNEL_URL',
    "is required: the cluster proxy's tunnel endpoint, e.g. http://127.0.0.1:8444",
  );
  if (nonEmpty(env, 'PROXY_CA_FILE') !== undefined && !proxyTunnelUrl.startsWith('https:'))
    throw new ConfigError('PROXY_CA_FILE', 'applies only to an https: PROXY_TUNNEL_URL');
  const proxyCa = readFileVar(env, 'PROXY_CA_FILE');
  const clusterId = required(
    nonEmpty(env, 'CLUSTER_ID'),
    'CLUSTER_ID',
    'is required: the id returned when the cluster was registered',
  );
  const agentToken = required(
    readSecret(env, 'AGENT_TOKEN'),
    'AGENT_TOKEN',
    'set AGENT_TOKEN or AGENT_TOKEN_FILE to the token returned when the cluster was registered',
  );
  const kubeUrl = parseUrl(env, 'KUBE_API_URL', HTTP);
  const clientCertFile = nonEmpty(env, 'KUBE_CLIENT_CERT_FILE');
  const clientKeyFile = nonEmpty(env, 'KUBE_CLIENT_KEY_FILE');
  if ((clientCertFile === undefined) !== (clientKeyFile === undefined))
    throw new ConfigError('KUBE_CLIENT_KEY_FILE', 'KUBE_CLIENT_CERT_FILE and KUBE_CLIENT_KEY_FILE go together');
  // Konnectivity's agent caps its backoff at 10 s (--sync-interval-cap).
  const backoffMaxMs = durationVar(env, 'AGENT_BACKOFF_MAX', 10_000);
  const backoffInitialMs = durationVar(env, 'AGENT_BACKOFF_INITIAL', 1000);
  if (backoffInitialMs > backoffMaxMs)
    throw new ConfigError('AGENT_BACKOFF_INITIAL', `must be at most AGENT_BACKOFF_MAX (${backoffMaxMs} ms)`);
  const pingIntervalMs = durationVar(env, 'AGENT_PING_INTERVAL', 30_000, 100);
  const port = parsePort(env, 'PORT', 8080);
  return {
    proxyTunnelUrl,
    proxyCa,
    clusterId,
    agentToken,
    kube:
      kubeUrl === undefined
        ? undefined
        : {
            url: kubeUrl,
            token: readSecret(env, 'KUBE_TOKEN'),
            clientCertFile,
            clientKeyFile,
            caFile: nonEmpty(env, 'KUBE_CA_FILE'),
            insecureSkipTlsVerify: booleanVar(env, 'KUBE_INSECURE_SKIP_TLS_VERIFY', false),
          },
    backoffInitialMs,
    backoffMaxMs,
    backoffResetMs: durationVar(env, 'AGENT_BACKOFF_RESET', 60_000),
    syncIntervalMs: durationVar(env, 'AGENT_SYNC_INTERVAL', 1000, 10),
    drainGraceMs: durationVar(env, 'AGENT_DRAIN_GRACE', 10_000, 0),
    pingIntervalMs,
    connectTimeoutMs: durationVar(env, 'AGENT_CONNECT_TIMEOUT', 10_000, 100),
    kubeRequestTimeoutMs: durationVar(env, 'KUBE_REQUEST_TIMEOUT', KUBE_REQUEST_TIMEOUT_MS, 100),
    http: httpTimeouts(env),
    port,
    metricsPort: parsePort(env, 'METRICS_PORT', 9093),
    host: nonEmpty(env, 'HOST') ?? '0.0.0.0',
    logLevel: nonEmpty(env, 'LOG_LEVEL') ?? 'info',
  };
}
