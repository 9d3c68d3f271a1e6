import { readFileSync } from 'node:fs';
import { ConfigError, nonEmpty, parsePort, parseUrl } from '@gsp/service-kit';
import type { Env } from '@gsp/service-kit';
import { parseDuration, readEnvPin, findFlag, CLI_ACCESS_ENABLED, InvalidEnvPinError } from '@gsp/flags-client';
import type { StaleMode } from './access.js';

export interface ClusterProxyConfig {
  port: number;
  tunnelPort: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  flagsCacheTtlMs: number;
  /** `SERVICE_CLI_ACCESS_ENABLED`, handed to the flags client as its environment. */
  flagEnv: Readonly<Record<string, string>>;
  staleMode: StaleMode;
  apiServerUrl: string;
  /** How often the watcher re-checks live tunnels besides change notifications. */
  watchIntervalMs: number;
  logLevel: string;
  /** PEM certificate and key for PORT; unset means a self-signed certificate generated at start. */
  tls: { cert: string; key: string } | undefined;
}

export { ConfigError };

function duration(env: Env, name: string, fallback: number): number {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return fallback;
  const ms = parseDuration(raw);
  if (ms === undefined) throw new ConfigError(name, `must be a duration such as 10, 10s or 500ms, got ${JSON.stringify(raw)}`);
  return ms;
}

export function loadConfig(env: Env = process.env): ClusterProxyConfig {
  const databaseUrl = parseUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  if (databaseUrl === undefined) throw new ConfigError('DATABASE_URL', "is required: the proxy reads the API server's flag and cluster tables");
  const apiServerUrl = parseUrl(env, 'API_SERVER_URL', ['http:', 'https:']);
  if (apiServerUrl === undefined) throw new ConfigError('API_SERVER_URL', 'is required: kubeconfig tokens are verified with its /.well-known/jwks.json');
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
    throw new ConfigError('SERVICE_CLI_ACCESS_STALE_MODE', `must be "best_effort" or "strict", got ${JSON.stringify(staleMode)}`);
  }
  const watchIntervalMs = duration(env, 'TUNNEL_WATCH_INTERVAL', 2000);
  if (watchIntervalMs < 10) throw new ConfigError('TUNNEL_WATCH_INTERVAL', 'must be at least 10ms');
  const certFile = nonEmpty(env, 'TLS_CERT_FILE');
  const keyFile = nonEmpty(env, 'TLS_KEY_FILE');
  if ((certFile === undefined) !== (keyFile === undefined)) throw new ConfigError(certFile === undefined ? 'TLS_CERT_FILE' : 'TLS_KEY_FILE', 'TLS_CERT_FILE and TLS_KEY_FILE go together');
  const read = (name: string, file: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(name, `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  };
  return {
    tls: certFile !== undefined && keyFile !== undefined ? { cert: read('TLS_CERT_FILE', certFile), key: read('TLS_KEY_FILE', keyFile) } : undefined,
    port: parsePort(env, 'PORT', 8443),
    tunnelPort: parsePort(env, 'TUNNEL_PORT', 8444),
    host: nonEmpty(env, 'HOST') ?? '127.0.0.1',
    databaseUrl,
    redisUrl: parseUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? '',
    flagsCacheTtlMs: duration(env, 'SERVICE_CACHE_FLAGS_TTL', 10_000),
    flagEnv,
    staleMode,
    apiServerUrl,
    watchIntervalMs,
    logLevel: nonEmpty(env, 'LOG_LEVEL') ?? 'info',
  };
}
