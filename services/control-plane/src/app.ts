import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import rateLimit from '@fastify/rate-limit';
import websocket from '@fastify/websocket';
import { clientErrorHandler, createServiceApp, problems, registerOpenApi, sendProblem } from '@gsp/service-kit';
import type { ControlPlaneConfig } from './config.js';
import audit from './plugins/audit.js';
import redis from './plugins/redis.js';
import type { SharedRedis } from './plugins/redis.js';
import kube from './plugins/kube.js';
import apikeys from './plugins/apikeys.js';
import auth from './plugins/auth.js';
import tickets from './plugins/tickets.js';
import agones from './plugins/agones.js';
import profiles from './plugins/profiles.js';
import openapi from './plugins/openapi.js';
import { failureLimiter } from './auth/failures.js';
import { clientErrorStatus, frameworkProblem, seenOf } from './early-errors.js';
import { ServiceUnavailable, TooManyRequests, withRetryAfter } from './errors.js';
import { openAuditExport } from './audit-export/index.js';
import type { AuditExport } from './audit-export/index.js';
import { MAX_FRAME_BYTES, isClientProtocolError } from './console/protocol.js';
import type { Retryable } from './errors.js';
import { redactingLogger } from './logger.js';
import { createMetrics } from './metrics.js';
import type { ControlPlaneMetrics } from './metrics.js';
import opsRoutes from './routes/ops/index.js';
import sessionRoutes from './routes/session/index.js';
import gameServerRoutes from './routes/gameservers/index.js';
import fleetRoutes from './routes/fleets/index.js';
import profileRoutes from './routes/profiles/index.js';
import consoleRoutes from './routes/console/index.js';
import logRoutes from './routes/logs/index.js';
import snapshotRoutes from './routes/snapshots/index.js';
import apiKeyRoutes from './routes/apikeys/index.js';

export const BODY_LIMIT = 16 * 1024;

declare module 'fastify' {
  interface FastifyInstance {
    /** Served on METRICS_PORT by server.ts, never on the API port. */
    metrics: ControlPlaneMetrics;
    /** The audit spool and its shipper, when a sink is configured. */
    auditExport: AuditExport | undefined;
  }
}

export interface BuildOptions {
  /** The application log (Fastify's logger option); production writes it to standard error. */
  logger?: FastifyServerOptions['logger'];
  /** Where audit lines go; standard output unless a test captures them. */
  auditStream?: Writable;
}

/**
 * Whose request budget a request spends: an API key's own (by its hash, so a key created again
 * under a revoked key's name starts afresh), else the user's, else the address's.
 */
function budgetKey(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal === null) return `ip:${request.ip}`;
  if (principal.apiKey !== undefined) return `apikey:${principal.apiKey.sha256}`;
  return `${principal.method}:${principal.userId}`;
}

/** The request budget in Redis, shared by the replicas; while the breaker is open, not asked of Redis at all. */
const sharedBudget = ({ client, health, keyPrefix }: SharedRedis) => ({
  redis: client,
  nameSpace: `${keyPrefix}rl:`,
  skipOnError: true,
  allowList: () => !health.usable(),
});

/** Builds the control plane; tests build it the same way with their own config, logger and audit stream. */
export async function buildApp(config: ControlPlaneConfig, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = createServiceApp({
    logger: redactingLogger(options.logger ?? { level: config.logLevel, stream: process.stderr }),
    bodyLimit: BODY_LIMIT,
    http: config.http,
    // Every path identifier (namespace, name, action, API key) is at most a DNS-1123 label long.
    longestPathIdentifier: 63,
    // Off unless configured: a believed X-Forwarded-For would let clients dodge the per-IP failure limit.
    trustProxy: config.trustProxy,
    // Refused before routing, so before any hook (the audit's among them): audited here, then
    // answered as problem+json like every service's.
    frameworkErrors: (error, request, reply) => {
      app.auditRequest(request, reply);
      // sendProblem, not reply.send(error): this reply's context has Fastify's default error handler.
      const { status, detail } = frameworkProblem(error, request.url);
      if (status >= 500) request.log.error({ err: error }, 'request could not be routed');
      reply.header('x-request-id', request.id);
      sendProblem(request, reply, status, detail);
    },
    clientErrorHandler: (error, socket) => {
      if (error.code !== 'ECONNRESET' && !socket.destroyed) {
        const seen = seenOf((error as { rawPacket?: unknown }).rawPacket);
        const status = clientErrorStatus(error.code);
        app.auditUnparsed({ ...seen, clientIP: socket.remoteAddress ?? '', status, requestId: randomUUID() }, socket);
      }
      clientErrorHandler(error, socket);
    },
  });

  if (config.modes.has('none')) {
    app.log.warn('AUTH_MODE=none: EVERY REQUEST IS AN ANONYMOUS ADMIN. Use this for local development only.');
  }

  await app.register(problems, { ownCodePrefix: 'CP_' });
  // An error that says when to try again (the cluster unreachable or throttling us) says it in Retry-After.
  app.addHook('onError', async (_request, reply, error) => {
    const retryAfter = (error as Retryable).retryAfter;
    if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
  });
  const auditStream = options.auditStream ?? process.stdout;
  const auditExport = await openAuditExport(config.auditExport, config.auditSpool, config.replicaId);
  app.decorate('auditExport', auditExport);
  await app.register(audit, { stream: auditStream, spool: auditExport?.spool });
  if (auditExport) {
    // AUDIT_SPOOL_FULL=block: while the spool is full, no request runs unrecorded (fail closed).
    app.addHook('onRequest', (request, _reply, done) => {
      if (!auditExport.blocked() || request.routeOptions.config.audit === false) return done();
      done(
        withRetryAfter(
          new ServiceUnavailable(
            'audit records cannot be kept (the audit spool is full and its sinks are behind); retry later',
          ),
          5,
        ),
      );
    });
    app.addHook('onClose', () => auditExport.close());
  }
  // Right after the audit, so that its hooks run before authentication's: an upgrade request
  // refused (401, 403, 429) has its socket closed once answered, on every route.
  await app.register(websocket, {
    options: { maxPayload: MAX_FRAME_BYTES },
    errorHandler: (error, socket, request) => {
      // A client's protocol mistake is a warning without a stack; `ws` is already closing that
      // socket with the matching code (the console session audits how it ended).
      if (isClientProtocolError(error)) {
        request.log.warn({ code: error.code, reason: error.message }, 'console client broke the WebSocket protocol');
        return;
      }
      request.log.error({ err: error }, 'console WebSocket failed');
      socket.terminate();
    },
  });
  await registerOpenApi(app, {
    title: 'GSP control plane',
    description: 'Game servers, fleets, profiles and API keys.',
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      basic: { type: 'http', scheme: 'basic' },
    },
  });
  // Before any route, so that it sees every one of them.
  await app.register(openapi);
  await app.register(redis, { url: config.redisUrl, keyPrefix: config.redisKeyPrefix });
  await app.register(kube, { kubeconfig: config.kubeconfig, namespace: config.namespace, ...config.kube });
  await app.register(apikeys, { prefix: config.apikeyPrefix });
  await app.register(profiles);
  await app.register(agones);
  const metrics = createMetrics({ apiKeys: () => app.apikeys.size, apiKeysSynced: () => app.apikeys.ready });
  app.decorate('metrics', metrics);
  if (auditExport) app.addHook('onReady', () => auditExport.start(metrics.registry, app.log));
  app.addHook('onResponse', (request, reply, done) => {
    if (request.routeOptions.config.audit !== false) {
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.requests.inc({ method: request.method, route, code: reply.statusCode });
      metrics.duration.observe({ route }, reply.elapsedTime / 1000);
    }
    done();
  });
  await app.register(tickets, { ttlMs: config.consoleTicketTtlMs });
  await app.register(auth, {
    modes: config.modes,
    basic: config.basic,
    oidc: config.oidc,
    roles: config.roles,
    apikeyPrefix: config.apikeyPrefix,
    failures: failureLimiter(app.redis, config.rateLimit.authFailures, config.rateLimit.windowMs),
    refused: (reason) => metrics.authFailures.inc({ reason }),
  });
  // Registered after auth so its per-route onRequest hook runs once the caller is known.
  await app.register(rateLimit, {
    global: true,
    max: config.rateLimit.max,
    timeWindow: config.rateLimit.windowMs,
    ...(app.redis === undefined ? {} : sharedBudget(app.redis)),
    keyGenerator: budgetKey,
    errorResponseBuilder: (_request, context) =>
      new TooManyRequests(`rate limit of ${context.max} requests per ${context.after} exceeded`),
  });

  await app.register(opsRoutes);
  await app.register(sessionRoutes);
  await app.register(gameServerRoutes);
  await app.register(fleetRoutes);
  await app.register(profileRoutes);
  await app.register(consoleRoutes);
  await app.register(logRoutes);
  // Retention deletes snapshots with no request behind it; its lines go to the same audit stream.
  await app.register(snapshotRoutes, {
    writeAudit: (line) => {
      auditExport?.spool(line);
      auditStream.write(`${JSON.stringify(line)}\n`);
    },
  });
  await app.register(apiKeyRoutes, {
    keyPrefix: config.apikeyPrefix,
    roles: config.roles,
    maxTtlMs: config.apikeyMaxTtlMs,
  });
  return app;
}
