import { readFileSync } from 'node:fs';
import {
  booleanVar,
  ConfigError,
  clockToleranceVar,
  durationVar,
  httpTimeouts,
  integerVar,
  nonEmpty,
  parsePort,
  parseUrl,
  readFileVar,
  readSecret,
  required,
  trustProxyVar,
} from '@gsp/service-kit';
import type { Env, HttpTimeouts } from '@gsp/service-kit';
import { auditExportConfig } from '@gsp/audit-export';
import type { AuditExportConfig } from '@gsp/audit-export';
import { isDnsLabel } from '@gsp/platform-contract';
import { hostname } from 'node:os';
import { MAX_KEY_TTL_MS, MAX_KEY_TTL_TEXT } from './apikeys/keys.js';
import type { KubeBounds } from './kube/client.js';
import { loadRoles, RoleDefinitionError } from './rbac/roles.js';
import type { Roles } from './rbac/roles.js';

export const AUTH_MODES = ['none', 'basic', 'apikey', 'oidc'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export interface BasicConfig {
  user: string;
  /** Set when AUTH_BASIC_PASSWORD was given: the app hashes it at start and keeps only the hash. */
  password?: string | undefined;
  passwordHash?: string | undefined;
  role: string;
}

export interface OidcConfig {
  issuerUrl: string;
  clientId: string;
  roleClaim: string;
  /** Claim value -> role name. */
  roleMapping: ReadonlyMap<string, string>;
  jwksCooldownMs: number;
  /** `AUTH_CLOCK_TOLERANCE`: how long after its `exp` (or before its `nbf`) a token is still accepted. */
  clockToleranceMs: number;
}

export interface ControlPlaneConfig {
  port: number;
  /** Plain HTTP, `GET /metrics` only (Prometheus); never on the API port. */
  metricsPort: number;
  host: string;
  modes: ReadonlySet<AuthMode>;
  basic: BasicConfig | undefined;
  oidc: OidcConfig | undefined;
  /** Unset: in-cluster configuration. */
  kubeconfig: string | undefined;
  /** KUBE_REQUEST_TIMEOUT and KUBE_WATCH_TIMEOUT. */
  kube: KubeBounds;
  /** HTTP_HEADERS_TIMEOUT, HTTP_REQUEST_TIMEOUT, HTTP_KEEP_ALIVE_TIMEOUT: how long a client may take. */
  http: HttpTimeouts;
  namespace: string;
  apikeyPrefix: string;
  apikeyMaxTtlMs: number | undefined;
  roles: Roles;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  rateLimit: { max: number; windowMs: number; authFailures: number };
  /** Fastify's trustProxy: whose X-Forwarded-For to believe for the client address. */
  trustProxy: boolean | string;
  logLevel: string;
  /** CONSOLE_TICKET_TTL: how long a console ticket may wait to be used. */
  consoleTicketTtlMs: number;
  /** The audit sinks (`AUDIT_WEBHOOK_*`, `AUDIT_OTLP_*`, `AUDIT_EXPORT_*`); none configured, no spool and no export. */
  auditExport: AuditExportConfig;
  /** The durable spool the records are shipped from (`AUDIT_SPOOL_*`), used when a sink is configured. */
  auditSpool: AuditSpoolConfig;
  /** `REPLICA_ID`: names this replica in the records' `source` (its spool is its own). */
  replicaId: string;
}

export interface AuditSpoolConfig {
  /** `AUDIT_SPOOL_DIR` */
  dir: string;
  /** `AUDIT_SPOOL_MAX_BYTES` */
  maxBytes: number;
  /** `AUDIT_SPOOL_FULL`: `block` answers 503 until there is room again (fail closed); `drop` serves on and counts. */
  full: 'block' | 'drop';
  /** `AUDIT_SPOOL_DRAIN`: at shutdown, how long the sinks may go on taking what is in the spool. */
  drainMs: number;
}

/** A replica id: a pod or host name (no control characters, a DNS name's length at most). */
const REPLICA_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$/;

function readAuditSpool(env: Env): AuditSpoolConfig {
  const full = nonEmpty(env, 'AUDIT_SPOOL_FULL') ?? 'block';
  if (full !== 'block' && full !== 'drop')
    throw new ConfigError('AUDIT_SPOOL_FULL', `must be "block" or "drop", got ${JSON.stringify(full)}`);
  return {
    dir: nonEmpty(env, 'AUDIT_SPOOL_DIR') ?? '.data/control-plane/audit-spool',
    maxBytes: integerVar(env, 'AUDIT_SPOOL_MAX_BYTES', 256 * 1024 * 1024, { min: 64 * 1024 }),
    full,
    drainMs: durationVar(env, 'AUDIT_SPOOL_DRAIN', 10_000, 0),
  };
}

function readReplicaId(env: Env): string {
  const id = nonEmpty(env, 'REPLICA_ID') ?? hostname();
  if (!REPLICA_ID.test(id))
    throw new ConfigError('REPLICA_ID', 'must be a pod or host name: letters, digits, ".", "_" and "-", at most 253');
  return id;
}

export { ConfigError };

const MAX_CONSOLE_TICKET_TTL_MS = 5 * 60_000;
const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

function readNamespace(env: Env, serviceAccountFile: string): string {
  const fromEnv = nonEmpty(env, 'POD_NAMESPACE');
  let namespace = fromEnv;
  if (namespace === undefined) {
    try {
      namespace = readFileSync(serviceAccountFile, 'utf8').trim() || undefined;
    } catch {
      namespace = undefined;
    }
  }
  namespace ??= 'default';
  if (!isDnsLabel(namespace))
    throw new ConfigError('POD_NAMESPACE', `must be a namespace name, got ${JSON.stringify(namespace)}`);
  return namespace;
}

function readKubeconfig(env: Env): string | undefined {
  const path = nonEmpty(env, 'KUBECONFIG');
  if (path === undefined && nonEmpty(env, 'KUBERNETES_SERVICE_HOST') === undefined) {
    throw new ConfigError(
      'KUBECONFIG',
      'is unset and this is not running in a Kubernetes pod (KUBERNETES_SERVICE_HOST is unset): point KUBECONFIG at a cluster, e.g. the kubeconfig that kube-lite prints',
    );
  }
  return path;
}

export interface LoadOptions {
  /** Where the service-account namespace is read from when POD_NAMESPACE is unset (tests point it elsewhere). */
  serviceAccountNamespaceFile?: string;
}

export function loadConfig(env: Env = process.env, options: LoadOptions = {}): ControlPlaneConfig {
  const listed = (nonEmpty(env, 'AUTH_MODE') ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  for (const mode of listed) {
    if (!(AUTH_MODES as readonly string[]).includes(mode))
      throw new ConfigError('AUTH_MODE', `unknown mode ${JSON.stringify(mode)} (known: ${AUTH_MODES.join(', ')})`);
  }
  const modes = new Set<AuthMode>(listed as AuthMode[]);
  if (booleanVar(env, 'AUTH_BASIC_ENABLED', false)) modes.add('basic');
  if (booleanVar(env, 'AUTH_APIKEY_ENABLED', false)) modes.add('apikey');
  if (booleanVar(env, 'AUTH_OIDC_ENABLED', false)) modes.add('oidc');
  if (modes.size === 0) {
    throw new ConfigError(
      'AUTH_MODE',
      'no authentication mode is on: list basic, apikey or oidc (or none for development) in AUTH_MODE, or set AUTH_*_ENABLED=true',
    );
  }
  if (modes.has('none') && modes.size > 1) {
    throw new ConfigError('AUTH_MODE', `"none" cannot be combined with other modes (on: ${[...modes].join(', ')})`);
  }

  let roles: Roles;
  const text = readFileVar(env, 'RBAC_ROLES_FILE');
  try {
    roles = loadRoles(text);
  } catch (err) {
    if (err instanceof RoleDefinitionError) throw new ConfigError('RBAC_ROLES_FILE', err.message);
    throw err;
  }
  const knownRole = (variable: string, name: string): string => {
    if (!roles.has(name))
      throw new ConfigError(variable, `unknown role ${JSON.stringify(name)} (known: ${roles.names().join(', ')})`);
    return name;
  };

  let basic: BasicConfig | undefined;
  if (modes.has('basic')) {
    const user = nonEmpty(env, 'AUTH_BASIC_USER');
    const password = readSecret(env, 'AUTH_BASIC_PASSWORD');
    const passwordHash = readSecret(env, 'AUTH_BASIC_PASSWORD_HASH');
    if (user === undefined) throw new ConfigError('AUTH_BASIC_USER', 'is required when basic authentication is on');
    if (password === undefined && passwordHash === undefined) {
      throw new ConfigError(
        'AUTH_BASIC_PASSWORD',
        'AUTH_BASIC_PASSWORD or AUTH_BASIC_PASSWORD_HASH is required when basic authentication is on',
      );
    }
    if (password !== undefined && passwordHash !== undefined)
      throw new ConfigError('AUTH_BASIC_PASSWORD', 'set AUTH_BASIC_PASSWORD or AUTH_BASIC_PASSWORD_HASH, not both');
    if (passwordHash !== undefined && !/^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/.test(passwordHash)) {
      throw new ConfigError('AUTH_BASIC_PASSWORD_HASH', 'must be a bcrypt hash ($2b$10$...)');
    }
    basic = {
      user,
      password,
      passwordHash,
      role: knownRole('AUTH_BASIC_ROLE', nonEmpty(env, 'AUTH_BASIC_ROLE') ?? 'admin'),
    };
  }

  let oidc: OidcConfig | undefined;
  if (modes.has('oidc')) {
    const issuerUrl = required(
      parseUrl(env, 'AUTH_OIDC_ISSUER_URL', ['https:', 'http:']),
      'AUTH_OIDC_ISSUER_URL',
      'is required when oidc authentication is on',
    );
    const clientId = required(
      nonEmpty(env, 'AUTH_OIDC_CLIENT_ID'),
      'AUTH_OIDC_CLIENT_ID',
      'is required when oidc authentication is on (tokens are checked to be issued to it)',
    );
    const roleMapping = new Map<string, string>();
    for (const pair of (nonEmpty(env, 'AUTH_OIDC_ROLE_MAPPING') ?? '').split(',').filter((p) => p.trim() !== '')) {
      const at = pair.lastIndexOf('=');
      const value = pair.slice(0, at).trim();
      const role = pair.slice(at + 1).trim();
      if (at <= 0 || value === '' || role === '')
        throw new ConfigError(
          'AUTH_OIDC_ROLE_MAPPING',
          `expected claimValue=role pairs separated by commas, got ${JSON.stringify(pair)}`,
        );
      roleMapping.set(value, knownRole('AUTH_OIDC_ROLE_MAPPING', role));
    }
    oidc = {
      issuerUrl,
      clientId,
      roleClaim: nonEmpty(env, 'AUTH_OIDC_ROLE_CLAIM') ?? 'roles',
      roleMapping,
      jwksCooldownMs: durationVar(env, 'AUTH_OIDC_JWKS_COOLDOWN', 30_000, 0),
      clockToleranceMs: clockToleranceVar(env),
    };
  }

  const apikeyMaxTtlMs = durationVar(env, 'APIKEY_MAX_TTL', undefined);
  if (apikeyMaxTtlMs !== undefined && apikeyMaxTtlMs > MAX_KEY_TTL_MS) {
    const raw = JSON.stringify(nonEmpty(env, 'APIKEY_MAX_TTL'));
    throw new ConfigError('APIKEY_MAX_TTL', `must be at most ${MAX_KEY_TTL_TEXT}, got ${raw}`);
  }

  // A ticket is a credential in a URL: it lives seconds, and minutes at most.
  const consoleTicketTtlMs = durationVar(env, 'CONSOLE_TICKET_TTL', 30_000, 100);
  if (consoleTicketTtlMs > MAX_CONSOLE_TICKET_TTL_MS) {
    throw new ConfigError(
      'CONSOLE_TICKET_TTL',
      `must be at most 5m, got ${JSON.stringify(nonEmpty(env, 'CONSOLE_TICKET_TTL'))}`,
    );
  }

  const apikeyPrefix = nonEmpty(env, 'APIKEY_PREFIX') ?? 'gsp';
  if (!/^[a-z][a-z0-9]{0,15}$/.test(apikeyPrefix))
    throw new ConfigError('APIKEY_PREFIX', 'must be 1-16 lower-case letters and digits, starting with a letter');

  return {
    port: parsePort(env, 'PORT', 8080),
    // Not 9090: the cluster proxy's default, and both run on one host under `npm start`.
    metricsPort: parsePort(env, 'METRICS_PORT', 9091),
    host: nonEmpty(env, 'HOST') ?? '0.0.0.0',
    modes,
    basic,
    oidc,
    kubeconfig: readKubeconfig(env),
    kube: {
      requestTimeoutMs: durationVar(env, 'KUBE_REQUEST_TIMEOUT', 10_000, 100),
      // Whole seconds: it is the watch's timeoutSeconds.
      watchTimeoutMs: Math.round(durationVar(env, 'KUBE_WATCH_TIMEOUT', 60_000, 1000) / 1000) * 1000,
    },
    http: httpTimeouts(env),
    namespace: readNamespace(env, options.serviceAccountNamespaceFile ?? SERVICE_ACCOUNT_NAMESPACE),
    apikeyPrefix,
    apikeyMaxTtlMs,
    roles,
    redisUrl: parseUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? 'gsp-cp:',
    rateLimit: {
      max: integerVar(env, 'RATE_LIMIT_MAX', 1200),
      windowMs: durationVar(env, 'RATE_LIMIT_WINDOW', 60_000),
      authFailures: integerVar(env, 'AUTH_FAILURE_LIMIT', 10),
    },
    trustProxy: trustProxyVar(env),
    logLevel: nonEmpty(env, 'LOG_LEVEL') ?? 'info',
    consoleTicketTtlMs,
    auditExport: auditExportConfig(env),
    auditSpool: readAuditSpool(env),
    replicaId: readReplicaId(env),
  };
}
