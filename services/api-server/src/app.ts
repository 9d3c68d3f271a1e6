import type { FastifyServerOptions } from 'fastify';
import { createServiceApp, problems, registerOpenApi } from '@gsp/service-kit';
import type { ServiceApp } from '@gsp/service-kit';
import { SUBJECT_MAX_LENGTH } from '@gsp/platform-contract';
import type { ApiServerConfig } from './config/index.js';
import { DATABASE_UNAVAILABLE, isDatabaseUnavailable, RETRY_AFTER_SECONDS } from './db/availability.js';
import db from './plugins/db.js';
import auth, { SECURITY_SCHEME } from './plugins/auth.js';
import metrics from './plugins/metrics.js';
import events from './plugins/events.js';
import flags from './plugins/flags.js';
import presence from './plugins/presence.js';
import auditExport from './plugins/audit-export.js';
import { grantPlatformAdmins } from './tenants/store.js';
import opsRoutes from './ops/routes.js';
import featureFlagRoutes from './flags/routes.js';
import tenantRoutes from './tenants/routes.js';
import clusterRoutes from './clusters/routes.js';
import auditLogRoutes from './audit-log/routes.js';
import kubeconfigRoutes from './kubeconfig/routes.js';
import ofrepRoutes from './ofrep/routes.js';
import eventRoutes from './events/routes.js';
import consoleBffAuth from './console-bff/auth.js';
import consoleBffStatic, { secureConsoleAnswers } from './console-bff/static.js';
import { createKubeconfigSigner } from './kubeconfig/signer.js';
import { AuditEntrySchema } from './audit-log/routes.js';
import { ClusterReadSchema, WithAgentToken } from './clusters/schemas.js';
import { SwitchRecordSchema } from './flags/record.js';
import { FlagStateSchema, WriteResultSchema } from './flags/schemas.js';
import { ListedMemberSchema, TenantSummarySchema } from './tenants/routes.js';

export const BODY_LIMIT = 16 * 1024;

/**
 * Every response schema /openapi.json names (see `namedSchema`), added before the routes that refer
 * to them: a reference to a schema missing here fails the boot.
 */
const NAMED_SCHEMAS = [
  SwitchRecordSchema,
  FlagStateSchema,
  WriteResultSchema,
  ClusterReadSchema,
  WithAgentToken,
  ListedMemberSchema,
  TenantSummarySchema,
  AuditEntrySchema,
];

/** Builds the API server; tests build it the same way, with their own config and logger. */
export async function buildApp(
  config: ApiServerConfig,
  logger: FastifyServerOptions['logger'] = { level: config.logLevel },
): Promise<ServiceApp> {
  const app = createServiceApp({
    logger,
    bodyLimit: BODY_LIMIT,
    http: config.http,
    // A member's subject, the longest identifier in a path (`/members/{subject}`).
    longestPathIdentifier: SUBJECT_MAX_LENGTH,
    trustProxy: config.trustProxy,
    // A first start of the embedded PostgreSQL runs initdb, which can take many seconds on a busy machine.
    pluginTimeout: 60_000,
  });
  // First of all hooks: every answer under /console/ carries the browser-app headers.
  app.addHook('onRequest', secureConsoleAnswers);
  await app.register(problems, {
    ownCodePrefix: 'API_',
    // A stalled or unreachable database is a 503 the client may retry, never a 500.
    unavailable: (err) => (isDatabaseUnavailable(err) ? DATABASE_UNAVAILABLE : undefined),
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });
  await registerOpenApi(app, {
    title: 'GSP platform API',
    description: 'Feature flags (the CLI-access kill switch), tenants and clusters.',
    securitySchemes: { [SECURITY_SCHEME]: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    security: [{ [SECURITY_SCHEME]: [] }],
  });
  for (const named of NAMED_SCHEMAS) app.addSchema(named.schema);
  await app.register(metrics);
  await app.register(db, {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
  });
  await app.register(auth, {
    platformId: config.platformId,
    jwt: config.jwt,
    oidc: config.oidc,
    clockToleranceMs: config.clockToleranceMs,
  });
  await app.register(events, { redisUrl: config.redisUrl, redisKeyPrefix: config.redisKeyPrefix });
  await app.register(flags, {
    ...config.flags,
    platformId: config.platformId,
    outboxPollIntervalMs: config.outboxPollIntervalMs,
    outboxRelayEnabled: config.outboxRelayEnabled,
  });
  await app.register(consoleBffAuth, { config });
  await app.register(presence, { sweepIntervalMs: config.presenceSweepIntervalMs });
  await app.register(auditExport, {
    config: config.auditExport,
    platformId: config.platformId,
    pollIntervalMs: config.auditExportPollIntervalMs,
  });
  await grantPlatformAdmins(app.pg, config.platformId, config.platformAdmins);

  await app.register(opsRoutes);
  await app.register(featureFlagRoutes, { platformId: config.platformId });
  await app.register(tenantRoutes, { oidcIssuer: config.oidc?.issuerUrl });
  await app.register(clusterRoutes, { platformId: config.platformId, tunnelUrl: config.proxyTunnelPublicUrl });
  await app.register(auditLogRoutes);
  await app.register(kubeconfigRoutes, {
    platformId: config.platformId,
    proxyPublicUrl: config.proxyPublicUrl,
    proxyCa: config.proxyCa,
    proxyInsecureSkipTlsVerify: config.proxyInsecureSkipTlsVerify,
    signer: await createKubeconfigSigner({
      keyFile: config.kubeconfigSigningKeyFile,
      ttlMs: config.kubeconfigTokenTtlMs,
    }),
  });
  await app.register(ofrepRoutes, { platformId: config.platformId, trustProxy: config.trustProxy });
  await app.register(eventRoutes, { platformId: config.platformId, ...config.events });
  await app.register(consoleBffStatic, { config });
  return app;
}
