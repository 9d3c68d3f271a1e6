import {
  booleanVar,
  clockToleranceVar,
  ConfigError,
  durationVar,
  httpTimeouts,
  nonEmpty,
  parsePort,
  parseUrl,
  readFileVar,
  readSecret,
  trustProxyVar,
} from '@gsp/service-kit';
import type { Env, HttpTimeouts } from '@gsp/service-kit';
import { readEnvPins } from '@gsp/flags-client';
import { auditExportConfig } from '@gsp/audit-export';
import type { AuditExportConfig } from '@gsp/audit-export';
import { isDnsLabel } from '@gsp/platform-contract';
import { readEventsConfig } from './events.js';
import { readConsoleAuthConfig } from './console-auth.js';
import type { ConsoleAuthConfig } from './console-auth.js';
import { readConsoleStaticConfig } from './console-static.js';
import type { ConsoleStaticConfig } from './console-static.js';
import type { EventsConfig } from './events.js';

/** The flag read path: the env pins, the cache, and the provider of flags outside the registry. */
export interface FlagsConfig {
  /** Env pins by flag key (`SERVICE_CLI_ACCESS_ENABLED`), for flags whose pinning variable is set. */
  pins: ReadonlyMap<string, boolean>;
  /** `SERVICE_CACHE_FLAGS_TTL`: how long the flags client keeps what it read. */
  ttlMs: number;
  /** `SERVICE_FLAGS_PROVIDER=ofrep`: flags outside the registry are resolved by this OFREP service. */
  ofrep: { url: string; headers: Record<string, string> } | undefined;
}

export interface ApiServerConfig {
  port: number;
  /** `METRICS_PORT`: Prometheus' `/metrics`, on a port of its own. */
  metricsPort: number;
  host: string;
  /** `TRUST_PROXY`: Fastify's trustProxy, whose `X-Forwarded-For`/`-Proto`/`-Host` to believe. */
  trustProxy: boolean | string;
  /** Unset means: start an embedded PostgreSQL under `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** `DATABASE_CONNECT_TIMEOUT`: opening a connection, or waiting for a free one in the pool. */
  databaseConnectTimeoutMs: number;
  /** `DATABASE_STATEMENT_TIMEOUT`: one statement, and a transaction left idle (its client gone silent). */
  databaseStatementTimeoutMs: number;
  /**
   * How long a client may take to send a request: `HTTP_HEADERS_TIMEOUT`, `HTTP_REQUEST_TIMEOUT`,
   * `HTTP_KEEP_ALIVE_TIMEOUT`.
   */
  http: HttpTimeouts;
  platformId: string;
  flags: FlagsConfig;
  /** `GET /api/v1/events`: `EVENTS_HEARTBEAT`, `EVENTS_REPLAY_LIMIT`, `EVENTS_MAX_BACKLOG_BYTES`. */
  events: EventsConfig;
  /** The web console's sign-in (`CONSOLE_*`, see src/config/console-auth.ts). */
  consoleAuth: ConsoleAuthConfig;
  /** How the web console is served (see src/config/console-static.ts). */
  consoleStatic: ConsoleStaticConfig;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  outboxPollIntervalMs: number;
  outboxRelayEnabled: boolean;
  /** `PRESENCE_SWEEP_INTERVAL`: how often tunnels whose proxy stopped renewing their lease are cleared. */
  presenceSweepIntervalMs: number;
  /**
   * The audit log's sinks (`AUDIT_WEBHOOK_*`, `AUDIT_OTLP_*`, `AUDIT_EXPORT_*`); none configured, nothing is
   * exported.
   */
  auditExport: AuditExportConfig;
  /**
   * `AUDIT_EXPORT_POLL_INTERVAL`: how often a sink's exporter looks for new rows, and a standby replica for a free
   * sink.
   */
  auditExportPollIntervalMs: number;
  oidc: { issuerUrl: string; audience: string; jwksCooldownMs: number } | undefined;
  /** `AUTH_CLOCK_TOLERANCE`: how long after its `exp` (or before its `nbf`) a token is still accepted. */
  clockToleranceMs: number;
  /** HS256 bearer tokens (development and tests); `audience` is what their `aud` must include. */
  jwt: { secret: Uint8Array; audience: string } | undefined;
  platformAdmins: readonly string[];
  logLevel: string;
  /** Where kubectl reaches the cluster proxy; kubeconfig servers are `${proxyPublicUrl}/clusters/{id}`. */
  proxyPublicUrl: string;
  /**
   * `PROXY_TUNNEL_PUBLIC_URL`: where tunnel agents dial the proxy's tunnel port (shown when a cluster is
   * registered).
   */
  proxyTunnelPublicUrl: string;
  kubeconfigTokenTtlMs: number;
  /** PKCS#8 PEM ES256 key that signs kubeconfig tokens; unset means a key pair generated at start. */
  kubeconfigSigningKeyFile: string | undefined;
  /** PEM CA that signed the proxy's certificate, embedded in kubeconfigs (`PROXY_CA_FILE`). */
  proxyCa: string | undefined;
  /** Development only: kubeconfigs skip verifying the proxy's (self-signed) certificate. */
  proxyInsecureSkipTlsVerify: boolean;
}

export { ConfigError };

/** The `aud` HS256 tokens must carry unless `AUTH_JWT_AUDIENCE` names another. */
export const DEFAULT_JWT_AUDIENCE = 'gsp-api';

function readPlatformId(env: Env): string {
  const platformId = nonEmpty(env, 'PLATFORM_ID') ?? 'default';
  if (!isDnsLabel(platformId))
    throw new ConfigError('PLATFORM_ID', 'must be a DNS-1123 label (lower-case letters, digits and "-")');
  return platformId;
}

/** `AUTH_OIDC_ISSUER_URL` and `AUTH_OIDC_AUDIENCE`, both or neither. */
function readOidcIssuer(env: Env): { issuerUrl: string; audience: string } | undefined {
  const issuerUrl = parseUrl(env, 'AUTH_OIDC_ISSUER_URL', ['https:', 'http:']);
  const audience = nonEmpty(env, 'AUTH_OIDC_AUDIENCE');
  if (issuerUrl !== undefined && audience === undefined) {
    throw new ConfigError(
      'AUTH_OIDC_AUDIENCE',
      'is required with AUTH_OIDC_ISSUER_URL, otherwise tokens issued to any client would be accepted',
    );
  }
  if (issuerUrl === undefined && audience !== undefined)
    throw new ConfigError('AUTH_OIDC_ISSUER_URL', 'is required with AUTH_OIDC_AUDIENCE');
  return issuerUrl !== undefined && audience !== undefined ? { issuerUrl, audience } : undefined;
}

/** `SERVICE_FLAGS_PROVIDER`: with `ofrep`, where flags outside the registry are resolved (`OFREP_*`). */
function readFlagsProvider(env: Env): FlagsConfig['ofrep'] {
  const provider = nonEmpty(env, 'SERVICE_FLAGS_PROVIDER') ?? 'database';
  if (provider !== 'database' && provider !== 'ofrep')
    throw new ConfigError('SERVICE_FLAGS_PROVIDER', `must be "database" or "ofrep", got ${JSON.stringify(provider)}`);
  const ofrepUrl = parseUrl(env, 'OFREP_URL', ['http:', 'https:']);
  if (provider === 'ofrep' && ofrepUrl === undefined)
    throw new ConfigError('OFREP_URL', 'is required with SERVICE_FLAGS_PROVIDER=ofrep');
  const ofrepToken = readSecret(env, 'OFREP_BEARER_TOKEN');
  return provider === 'ofrep' && ofrepUrl !== undefined
    ? { url: ofrepUrl, headers: ofrepToken ? { authorization: `Bearer ${ofrepToken}` } : {} }
    : undefined;
}

/** HS256 bearer tokens (`AUTH_JWT_*`); required when there is no OIDC issuer to verify tokens with. */
function readJwt(env: Env, hasOidcIssuer: boolean): ApiServerConfig['jwt'] {
  const secret = readSecret(env, 'AUTH_JWT_SECRET');
  if (secret !== undefined && Buffer.byteLength(secret) < 32) {
    throw new ConfigError('AUTH_JWT_SECRET', 'must be at least 32 bytes (HS256 needs a 256-bit key)');
  }
  if (!hasOidcIssuer && secret === undefined) {
    throw new ConfigError(
      'AUTH_JWT_SECRET',
      'set AUTH_JWT_SECRET or AUTH_OIDC_ISSUER_URL: at least one bearer-token verifier is required',
    );
  }
  const jwtAudience = nonEmpty(env, 'AUTH_JWT_AUDIENCE');
  if (jwtAudience !== undefined && secret === undefined) {
    throw new ConfigError('AUTH_JWT_AUDIENCE', 'applies to HS256 tokens only, and AUTH_JWT_SECRET is not set');
  }
  return secret === undefined
    ? undefined
    : { secret: new TextEncoder().encode(secret), audience: jwtAudience ?? DEFAULT_JWT_AUDIENCE };
}

function readPlatformAdmins(env: Env): string[] {
  return (nonEmpty(env, 'PLATFORM_ADMINS') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The kubeconfig tokens' lifetime and signing key; the key file is read now, not at the first download. */
function readKubeconfigSigning(env: Env): {
  kubeconfigTokenTtlMs: number;
  kubeconfigSigningKeyFile: string | undefined;
} {
  const kubeconfigTokenTtlMs = durationVar(env, 'KUBECONFIG_TOKEN_TTL', 12 * 3600_000, 1000);
  const kubeconfigSigningKeyFile = nonEmpty(env, 'KUBECONFIG_SIGNING_KEY_FILE');
  readFileVar(env, 'KUBECONFIG_SIGNING_KEY_FILE');
  return { kubeconfigTokenTtlMs, kubeconfigSigningKeyFile };
}

/**
 * Reads and checks every variable; the first bad one is a ConfigError naming it. The sections are
 * read in this order, so with several bad variables the same one is named every time.
 */
export function loadConfig(env: Env = process.env): ApiServerConfig {
  const platformId = readPlatformId(env);
  // A malformed pin is an InvalidEnvPinError, a ConfigError naming its variable.
  const pins = readEnvPins(env);
  const oidcIssuer = readOidcIssuer(env);
  const ofrep = readFlagsProvider(env);
  const jwksCooldownMs = durationVar(env, 'AUTH_OIDC_JWKS_COOLDOWN', 30_000, 0);
  const jwt = readJwt(env, oidcIssuer !== undefined);
  const platformAdmins = readPlatformAdmins(env);
  const kubeconfigSigning = readKubeconfigSigning(env);

  return {
    port: parsePort(env, 'PORT', 8081),
    metricsPort: parsePort(env, 'METRICS_PORT', 9092),
    host: nonEmpty(env, 'HOST') ?? '127.0.0.1',
    trustProxy: trustProxyVar(env),
    databaseUrl: parseUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: nonEmpty(env, 'DATA_DIR') ?? '.data',
    databaseConnectTimeoutMs: durationVar(env, 'DATABASE_CONNECT_TIMEOUT', 2000, 100),
    databaseStatementTimeoutMs: durationVar(env, 'DATABASE_STATEMENT_TIMEOUT', 5000, 100),
    http: httpTimeouts(env),
    platformId,
    flags: { pins, ttlMs: durationVar(env, 'SERVICE_CACHE_FLAGS_TTL', 10_000, 0), ofrep },
    events: readEventsConfig(env),
    consoleAuth: readConsoleAuthConfig(env),
    consoleStatic: readConsoleStaticConfig(env),
    redisUrl: parseUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? '',
    outboxPollIntervalMs: durationVar(env, 'OUTBOX_POLL_INTERVAL', 1000, 10),
    outboxRelayEnabled: booleanVar(env, 'OUTBOX_RELAY_ENABLED', true),
    presenceSweepIntervalMs: durationVar(env, 'PRESENCE_SWEEP_INTERVAL', 1000, 10),
    auditExport: auditExportConfig(env),
    auditExportPollIntervalMs: durationVar(env, 'AUDIT_EXPORT_POLL_INTERVAL', 1000, 10),
    oidc: oidcIssuer === undefined ? undefined : { ...oidcIssuer, jwksCooldownMs },
    clockToleranceMs: clockToleranceVar(env),
    jwt,
    platformAdmins,
    logLevel: nonEmpty(env, 'LOG_LEVEL') ?? 'info',
    proxyPublicUrl: parseUrl(env, 'PROXY_PUBLIC_URL', ['http:', 'https:']) ?? 'https://127.0.0.1:8443',
    proxyTunnelPublicUrl: parseUrl(env, 'PROXY_TUNNEL_PUBLIC_URL', ['http:', 'https:']) ?? 'https://127.0.0.1:8444',
    ...kubeconfigSigning,
    proxyCa: readFileVar(env, 'PROXY_CA_FILE'),
    proxyInsecureSkipTlsVerify: booleanVar(env, 'PROXY_INSECURE_SKIP_TLS_VERIFY', false),
  };
}
