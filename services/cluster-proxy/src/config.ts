import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  ConfigError,
  clockToleranceVar,
  durationVar,
  httpTimeouts,
  nonEmpty,
  parsePort,
  parseUrl,
  readFileVar,
  required,
} from '@gsp/service-kit';
import type { Env, HttpTimeouts } from '@gsp/service-kit';
import { readEnvPins } from '@gsp/flags-client';
import { hasControlCharacters, isDnsLabel } from '@gsp/platform-contract';
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
  /** Env pins by flag key (`SERVICE_CLI_ACCESS_ENABLED`), read once here and handed to the flags client. */
  pins: ReadonlyMap<string, boolean>;
  staleMode: StaleMode;
  apiServerUrl: string;
  /** `AUTH_CLOCK_TOLERANCE`: how long after its `exp` a kubeconfig token is still accepted. */
  clockToleranceMs: number;
  /** The platform admins' resource is `platform:<PLATFORM_ID>`, as on the API server. */
  platformId: string;
  /** How often the watcher re-checks live tunnels besides change notifications. */
  watchIntervalMs: number;
  /** How often each agent's connection is pinged; no answer within half of it drops the tunnel. */
  pingIntervalMs: number;
  /** `PRESENCE_LEASE`: how long a tunnel's presence row lives without a heartbeat (sent every third of it). */
  presenceLeaseMs: number;
  /** `PROXY_REPLICA_ID`: names this replica's presence rows and its `proxy_replicas` row, and is told to agents. */
  replicaId: string;
  /** `TUNNEL_WAIT`: how long a kubectl request waits for its cluster's tunnel (the agent may be redialling). */
  tunnelWaitMs: number;
  /** `DRAIN_GRACE`: how long a draining replica (SIGTERM) lets requests and streams in flight finish. */
  drainGraceMs: number;
  logLevel: string;
  /**
   * How long kubectl may take to send a request: HTTP_HEADERS_TIMEOUT, HTTP_REQUEST_TIMEOUT,
   * HTTP_KEEP_ALIVE_TIMEOUT.
   */
  http: HttpTimeouts;
  /** PEM certificate and key for PORT; unset means a self-signed certificate generated at start. */
  tls: { cert: string; key: string } | undefined;
  /** PEM certificate and key for TUNNEL_PORT; unset means h2c (TLS terminated in front of the proxy). */
  tunnelTls: { cert: string; key: string } | undefined;
}

/** A PEM certificate and key read from CERT and KEY (both or neither). */
function certificatePair(env: Env, certVar: string, keyVar: string): { cert: string; key: string } | undefined {
  const certFile = nonEmpty(env, certVar);
  const keyFile = nonEmpty(env, keyVar);
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new ConfigError(certFile === undefined ? certVar : keyVar, `${certVar} and ${keyVar} go together`);
  if (certFile === undefined || keyFile === undefined) return undefined;
  return { cert: readFileVar(env, certVar) as string, key: readFileVar(env, keyVar) as string };
}

/** The longest `PROXY_REPLICA_ID`: a DNS name's length, so a pod or host name fits. */
export const REPLICA_ID_MAX_LENGTH = 253;

/** `PROXY_REPLICA_ID`, or one unique to this process: host, pid and a random part (a restart is a new replica). */
function replicaId(env: Env): string {
  const given = nonEmpty(env, 'PROXY_REPLICA_ID');
  if (given === undefined) return `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  if (hasControlCharacters(given)) throw new ConfigError('PROXY_REPLICA_ID', 'must not contain control characters');
  if (given.length > REPLICA_ID_MAX_LENGTH)
    throw new ConfigError(
      'PROXY_REPLICA_ID',
      `must be at most ${REPLICA_ID_MAX_LENGTH} characters, got ${given.length}`,
    );
  return given;
}

export function loadConfig(env: Env = process.env): ClusterProxyConfig {
  const databaseUrl = required(
    parseUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    'DATABASE_URL',
    "is required: the proxy reads the API server's flag and cluster tables",
  );
  const apiServerUrl = required(
    parseUrl(env, 'API_SERVER_URL', ['http:', 'https:']),
    'API_SERVER_URL',
    'is required: kubeconfig tokens are verified with its /.well-known/jwks.json',
  );
  // A malformed pin is an InvalidEnvPinError, a ConfigError naming its variable.
  const pins = readEnvPins(env);
  const staleMode = nonEmpty(env, 'SERVICE_CLI_ACCESS_STALE_MODE') ?? 'best_effort';
  if (staleMode !== 'best_effort' && staleMode !== 'strict') {
    throw new ConfigError(
      'SERVICE_CLI_ACCESS_STALE_MODE',
      `must be "best_effort" or "strict", got ${JSON.stringify(staleMode)}`,
    );
  }
  const platformId = nonEmpty(env, 'PLATFORM_ID') ?? 'default';
  if (!isDnsLabel(platformId)) {
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
    pins,
    staleMode,
    apiServerUrl,
    clockToleranceMs: clockToleranceVar(env),
    platformId,
    watchIntervalMs,
    pingIntervalMs,
    presenceLeaseMs: durationVar(env, 'PRESENCE_LEASE', 15_000, 300),
    replicaId: replicaId(env),
    tunnelWaitMs: durationVar(env, 'TUNNEL_WAIT', 5000, 0),
    drainGraceMs: durationVar(env, 'DRAIN_GRACE', 25_000, 0),
    logLevel: nonEmpty(env, 'LOG_LEVEL') ?? 'info',
    http: httpTimeouts(env),
  };
}
