import { ConfigError, nonEmpty, parsePort, parseUrl, readSecret } from '@gsp/service-kit';
import type { Env } from '@gsp/service-kit';

export interface TunnelAgentConfig {
  proxyTunnelUrl: string;
  clusterId: string;
  agentToken: string;
  /** Unset: in-cluster config (service account). */
  kube:
    | { url: string; token: string | undefined; clientCertFile: string | undefined; clientKeyFile: string | undefined; caFile: string | undefined; insecureSkipTlsVerify: boolean }
    | undefined;
  backoffInitialMs: number;
  backoffMaxMs: number;
  /** A connection that stayed up this long resets the backoff. */
  backoffResetMs: number;
  port: number;
  host: string;
  logLevel: string;
}

export { ConfigError };

/** Durations as `500ms`, `2s`, `1m`, or plain seconds. */
export function duration(env: Env, name: string, fallback: number): number {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return fallback;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw);
  if (!m) throw new ConfigError(name, `must be a duration such as 30s or 500ms, got ${JSON.stringify(raw)}`);
  return Math.round(Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h']);
}

const HTTP = ['http:', 'https:'];

export function loadConfig(env: Env = process.env): TunnelAgentConfig {
  const proxyTunnelUrl = parseUrl(env, 'PROXY_TUNNEL_URL', HTTP);
  if (proxyTunnelUrl === undefined) throw new ConfigError('PROXY_TUNNEL_URL', "is required: the cluster proxy's tunnel endpoint, e.g. http://127.0.0.1:8444");
  const clusterId = nonEmpty(env, 'CLUSTER_ID');
  if (clusterId === undefined) throw new ConfigError('CLUSTER_ID', 'is required: the id returned when the cluster was registered');
  const agentToken = readSecret(env, 'AGENT_TOKEN');
  if (agentToken === undefined) throw new ConfigError('AGENT_TOKEN', 'set AGENT_TOKEN or AGENT_TOKEN_FILE to the token returned when the cluster was registered');
  const kubeUrl = parseUrl(env, 'KUBE_API_URL', HTTP);
  const clientCertFile = nonEmpty(env, 'KUBE_CLIENT_CERT_FILE');
  const clientKeyFile = nonEmpty(env, 'KUBE_CLIENT_KEY_FILE');
  if ((clientCertFile === undefined) !== (clientKeyFile === undefined)) throw new ConfigError('KUBE_CLIENT_KEY_FILE', 'KUBE_CLIENT_CERT_FILE and KUBE_CLIENT_KEY_FILE go together');
  const backoffMaxMs = duration(env, 'AGENT_BACKOFF_MAX', 30_000);
  if (backoffMaxMs < 1) throw new ConfigError('AGENT_BACKOFF_MAX', 'must be positive');
  const backoffInitialMs = duration(env, 'AGENT_BACKOFF_INITIAL', 1000);
  if (backoffInitialMs < 1 || backoffInitialMs > backoffMaxMs) throw new ConfigError('AGENT_BACKOFF_INITIAL', `must be positive and at most AGENT_BACKOFF_MAX (${backoffMaxMs} ms)`);
  const port = parsePort(env, 'PORT', 8080);
  return {
    proxyTunnelUrl,
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
            insecureSkipTlsVerify: nonEmpty(env, 'KUBE_INSECURE_SKIP_TLS_VERIFY') === 'true',
          },
    backoffInitialMs,
    backoffMaxMs,
    backoffResetMs: duration(env, 'AGENT_BACKOFF_RESET', 60_000),
    port,
    host: nonEmpty(env, 'HOST') ?? '0.0.0.0',
    logLevel: nonEmpty(env, 'LOG_LEVEL') ?? 'info',
  };
}
