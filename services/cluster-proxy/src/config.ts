import { ConfigError, durationVar, httpTimeouts, nonEmpty, parsePort, parseUrl, readFileVar } from '@gsp/service-kit';
import type { Env, HttpTimeouts } from '@gsp/service-kit';
import { readEnvPin, findFlag, CLI_ACCESS_ENABLED, InvalidEnvPinError } from '@gsp/flags-client';
import type { StaleMode } from './access.js';

export interface ClusterProxyConfig {
  port: number;
  tunnelPort: number;
  /** Plain HTTP, `GET /metrics` only (Prometheus). */
  metricsPort: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  flagsCacheTtlMs: number;
  /** `SERVICE_CLI_ACCESS_ENABLED`, handed to the flags client as its environment. */
  flagEnv: Readonly<Record<string, string>>;
  staleMode: StaleMode;
  apiServerUrl: string;
  /** The platform admins' resource is `platform:<PLATFORM_ID>`, as on the API server. */
  platformId: string;
  /** How often the watcher re-checks live tunnels besides change notifications. */
  watchIntervalMs: number;
  /** How often each agent's connection is pinged; no answer within half of it drops the tunnel. */
  pingIntervalMs: number;
  logLevel: string;
  /** How long kubectl may take to send a request: HTTP_HEADERS_TIMEOUT, HTTP_REQUEST_TIMEOUT, HTTP_KEEP_ALIVE_TIMEOUT. */
  http: HttpTimeouts;
  /** PEM certificate and key for PORT; unset means a self-signed certificate generated at start. */
  tls: { cert: string; key: string } | undefined;
  /** PEM certificate and key for TUNNEL_PORT; unset means h2c (TLS terminated in front of the proxy). */
  tunnelTls: { cert: string; key: string } | undefined;
}

export { ConfigError };

/** A PEM certificate and key read from CERT and KEY (both or neither). */
function certificatePair(env: Env, certVar: string, keyVar: string): { cert: string; key: string } | undefined {
  const certFile = nonEmpty(env, certVar);
  const keyFile = nonEmpty(env, keyVar);
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new ConfigError(certFile === undefined ? certVar : keyVar, `${certVar} and ${keyVar} go together`);
  if (certFile === undefined || keyFile === undefined) return undefined;
  return { cert: readFileVar(env, certVar) as string, key: readFileVar(env, keyVar) as string };
}

export function loadConfig(env: Env = process.env): ClusterProxyConfig {
  const databaseUrl = parseUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  if (databaseUrl === undefined)
    throw new ConfigError('DATABASE_URL', "is required: the proxy reads the API server's flag and cluster tables");
  const apiServerUrl = parseUrl(env, 'API_SERVER_URL', ['http:', 'https:']);
  if (apiServerUrl === undefined)
    throw new ConfigError(
      'API_SERVER_URL',
      'is required: kubeconfig tokens are verified with its /.well-known/jwks.json',
    );
  const flagEnv: Record<string, string> = {};
  try {
    const flag = findFlag(CLI_ACCESS_ENABLED)!;
    const pin = readEnvPin(flag, env);
    if (pin !== undefined) flagEnv[flag.envVar] = String(pin);
  } catch (err) {
    if (err instanceof InvalidEnvPinError) throw new ConfigError(err.variable, 'must be "true" or "false" when set');
    throw err;
  }
  const staleMode = nonEmpty(env, 'SERVICE_CLI_ACCESS_STALE_MODE') ?? 'best_effort';
  if (staleMode !== 'best_effort' && staleMode !== 'strict') {
    throw new ConfigError(
      'SERVICE_CLI_ACCESS_STALE_MODE',
      `must be "best_effort" or "strict", got ${JSON.stringify(staleMode)}`,
    );
  }
  const platformId = nonEmpty(env, 'PLATFORM_ID') ?? 'default';
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(platformId) || platformId.length > 63) {
    throw new ConfigError(
      'PLATFORM_ID',
      "must be a DNS label (lowercase letters, digits and dashes), the same as the API server's",
    );
  }
  const watchIntervalMs = durationVar(env, 'TUNNEL_WATCH_INTERVAL', 2000, 10);
  const pingIntervalMs = durationVar(env, 'TUNNEL_PING_INTERVAL', 30_000, 100);
  return {
    tls: certificatePair(env, 'TLS_CERT_FILE', 'TLS_KEY_FILE'),
    tunnelTls: certificatePair(env, 'TUNNEL_TLS_CERT_FILE', 'TUNNEL_TLS_KEY_FILE'),
    port: parsePort(env, 'PORT', 8443),
    tunnelPort: parsePort(env, 'TUNNEL_PORT', 8444),
    metricsPort: parsePort(env, 'METRICS_PORT', 9090),
    host: nonEmpty(env, 'HOST') ?? '127.0.0.1',
    databaseUrl,
    redisUrl: parseUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? '',
    flagsCacheTtlMs: durationVar(env, 'SERVICE_CACHE_FLAGS_TTL', 10_000, 0),
    flagEnv,
    staleMode,
    apiServerUrl,
    platformId,
    watchIntervalMs,
    pingIntervalMs,
    logLevel: nonEmpty(env, 'LOG_LEVEL') ?? 'info',
    http: httpTimeouts(env),
  };
}
