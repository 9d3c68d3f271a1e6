import { durationVar, httpTimeouts, integerVar, nonEmpty, parsePort, parseUrl, trustProxyVar } from '@gsp/service-kit';
import type { Env, HttpTimeouts } from '@gsp/service-kit';
import { auditExportConfig } from '@gsp/audit-export';
import type { AuditExportConfig } from '@gsp/audit-export';
import type { KubeBounds } from '../kube/client.js';
import type { Roles } from '../rbac/roles.js';
import { readApikeyMaxTtl, readApikeyPrefix, readConsoleTicketTtl } from './apikeys.js';
import { readAuditSpool, readReplicaId } from './audit.js';
import type { AuditSpoolConfig } from './audit.js';
import { readBasic, readModes, readOidc, readRoles } from './auth.js';
import type { AuthMode, BasicConfig, OidcConfig } from './auth.js';
import { readKubeBounds, readKubeconfig, readNamespace, SERVICE_ACCOUNT_NAMESPACE } from './kube.js';
import { readPanel } from './panel.js';
import type { PanelConfig } from './panel.js';

export { ConfigError } from '@gsp/service-kit';
export { AUTH_MODES } from './auth.js';
export type { AuthMode, BasicConfig, OidcConfig } from './auth.js';
export type { AuditSpoolConfig } from './audit.js';
export type { PanelConfig } from './panel.js';

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
  /** `AUDIT_LOG_FILE`: where the audit lines are appended instead of standard output; unset, standard output. */
  auditLogFile: string | undefined;
  /** `REPLICA_ID`: names this replica in the records' `source` (its spool is its own). */
  replicaId: string;
  /** `PANEL_*`: the game-server panel served under `/panel/` and its sessions. */
  panel: PanelConfig;
}

export interface LoadOptions {
  /** Where the service-account namespace is read from when POD_NAMESPACE is unset (tests point it elsewhere). */
  serviceAccountNamespaceFile?: string;
}

/**
 * The control plane's configuration from its environment, each section read by its own function
 * (src/config/); a bad value stops the start with a ConfigError naming its variable.
 */
export function loadConfig(env: Env = process.env, options: LoadOptions = {}): ControlPlaneConfig {
  // Read in this order, so that of two bad values the same one is reported as before.
  const modes = readModes(env);
  const roles = readRoles(env);
  const basic = modes.has('basic') ? readBasic(env, roles) : undefined;
  const oidc = modes.has('oidc') ? readOidc(env, roles) : undefined;
  const apikeyMaxTtlMs = readApikeyMaxTtl(env);
  const consoleTicketTtlMs = readConsoleTicketTtl(env);
  const apikeyPrefix = readApikeyPrefix(env);
  const panel = readPanel(env, modes);
  return {
    port: parsePort(env, 'PORT', 8080),
    // Not 9090: the cluster proxy's default, and both run on one host under `npm start`.
    metricsPort: parsePort(env, 'METRICS_PORT', 9091),
    host: nonEmpty(env, 'HOST') ?? '0.0.0.0',
    modes,
    basic,
    oidc,
    kubeconfig: readKubeconfig(env),
    kube: readKubeBounds(env),
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
    auditLogFile: nonEmpty(env, 'AUDIT_LOG_FILE'),
    replicaId: readReplicaId(env),
    panel,
  };
}
