import Fastify from 'fastify';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ApiServerConfig } from './config.js';
import { ProblemSchema } from './schemas.js';
import { applyHttpTimeouts, clientErrorHandler, frameworkErrors, problems } from '@gsp/service-kit';
import { DATABASE_UNAVAILABLE, isDatabaseUnavailable, RETRY_AFTER_SECONDS } from './db/availability.js';
import db from './plugins/db.js';
import auth, { SECURITY_SCHEME } from './plugins/auth.js';
import metrics from './plugins/metrics.js';
import flags from './plugins/flags.js';
import { PLATFORM_ADMIN_ROLE, platformResource } from '@gsp/platform-contract';
import featureFlagRoutes from './routes/feature-flags/index.js';
import tenantRoutes from './routes/tenants/index.js';
import auditRoutes from './routes/audit/index.js';
import opsRoutes from './routes/ops/index.js';
import accessRoutes from './routes/access/index.js';
import { createKubeconfigSigner } from './kubeconfig/signer.js';

export const BODY_LIMIT = 16 * 1024;

/** Builds the API server; tests build it the same way, with their own config and logger. */
export async function buildApp(
  config: ApiServerConfig,
  logger: FastifyServerOptions['logger'] = { level: config.logLevel },
): Promise<FastifyInstance> {
  const app = Fastify({
    logger,
    bodyLimit: BODY_LIMIT,
    // A first start of the embedded PostgreSQL runs initdb, which can take many seconds on a busy machine.
    pluginTimeout: 60_000,
    genReqId: () => randomUUID(),
    // Malformed percent-encoding and bytes that are not HTTP get problem+json like everything else.
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();
  applyHttpTimeouts(app.server, config.http);
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  // Only JSON bodies are accepted; anything else is 415 rather than a confusing 400.
  app.removeContentTypeParser('text/plain');
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  app.addSchema(ProblemSchema);
  await app.register(problems, {
    ownCodePrefix: 'API_',
    // A stalled or unreachable database is a 503 the client may retry, never a 500.
    unavailable: (err) => (isDatabaseUnavailable(err) ? DATABASE_UNAVAILABLE : undefined),
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });
  await app.register(swagger, {
    // Shared schemas keep their $id as their name in components.schemas (`Problem`, not `def-0`).
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'GSP platform API',
        version: '1.0.0',
        description: 'Feature flags (the CLI-access kill switch), tenants and clusters.',
      },
      components: { securitySchemes: { [SECURITY_SCHEME]: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ [SECURITY_SCHEME]: [] }],
    },
  });
  await app.register(metrics);
  await app.register(db, {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
  });
  await app.register(auth, { platformId: config.platformId, jwt: config.jwt, oidc: config.oidc });
  await app.register(flags, {
    platformId: config.platformId,
    envPins: config.envPins,
    flagEnv: config.flagEnv,
    ttlMs: config.flagsCacheTtlMs,
    redisUrl: config.redisUrl,
    redisKeyPrefix: config.redisKeyPrefix,
    outboxPollIntervalMs: config.outboxPollIntervalMs,
    outboxRelayEnabled: config.outboxRelayEnabled,
    ofrep: config.ofrep,
  });

  // Platform admins named in configuration are (re)granted at every start.
  for (const subject of config.platformAdmins) {
    await app.pg.query(
      'INSERT INTO role_bindings (subject, resource, role) VALUES ($1, $2, $3) ON CONFLICT (subject, resource) DO UPDATE SET role = EXCLUDED.role',
      [subject, platformResource(config.platformId), PLATFORM_ADMIN_ROLE],
    );
  }

  await app.register(opsRoutes);
  await app.register(featureFlagRoutes);
  await app.register(tenantRoutes);
  await app.register(auditRoutes);
  await app.register(accessRoutes, {
    proxyPublicUrl: config.proxyPublicUrl,
    proxyCa: config.proxyCa,
    proxyInsecureSkipTlsVerify: config.proxyInsecureSkipTlsVerify,
    signer: await createKubeconfigSigner({
      keyFile: config.kubeconfigSigningKeyFile,
      ttlMs: config.kubeconfigTokenTtlMs,
    }),
  });
  await app.register(import('./routes/ofrep/index.js'), { platformId: config.platformId });
  return app;
}
