import Fastify from 'fastify';
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import swagger from '@fastify/swagger';
import rateLimit from '@fastify/rate-limit';
import websocket from '@fastify/websocket';
import { Redis } from 'ioredis';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ControlPlaneConfig } from './config.js';
import { applyHttpTimeouts, clientErrorHandler, problems, sendProblem } from '@gsp/service-kit';
import audit from './plugins/audit.js';
import kube from './plugins/kube.js';
import auth from './plugins/auth.js';
import { localFailureLimiter, redisFailureLimiter, redisHealth } from './auth/failures.js';
import { clientErrorStatus, frameworkProblem, seenOf } from './early-errors.js';
import { TooManyRequests } from './errors.js';
import type { Retryable } from './errors.js';
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
import agones from './plugins/agones.js';
import profiles from './plugins/profiles.js';
import openapi from './plugins/openapi.js';
import apiKeyRoutes from './routes/apikeys/index.js';

export const BODY_LIMIT = 16 * 1024;
/** Longest wait for one Redis command; Redis answers in well under a millisecond when healthy. */
export const REDIS_COMMAND_TIMEOUT_MS = 250;

declare module 'fastify' {
  interface FastifyInstance {
    /** Served on METRICS_PORT by server.ts, never on the API port. */
    metrics: ControlPlaneMetrics;
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

/** A URL as the application log shows it: a console ticket in the query is a credential, so it is not. */
function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  return url.slice(0, query) + url.slice(query).replace(/([?&]ticket=)[^&#]*/gi, '$1[redacted]');
}

/** Fastify's request serializer, but with `url` redacted; it replaces any other. */
const serializeRequest = (req: FastifyRequest) => ({
  method: req.method,
  url: redactUrl(req.url),
  host: req.host,
  remoteAddress: req.ip,
  remotePort: req.socket?.remotePort,
});

/** Builds the control plane; tests build it the same way with their own config, logger and audit stream. */
export async function buildApp(config: ControlPlaneConfig, options: BuildOptions = {}): Promise<FastifyInstance> {
  const logger: FastifyServerOptions['logger'] = options.logger ?? { level: config.logLevel, stream: process.stderr };
  const app = Fastify({
    logger:
      typeof logger === 'object'
        ? { ...logger, serializers: { ...logger.serializers, req: serializeRequest } }
        : logger,
    bodyLimit: BODY_LIMIT,
    genReqId: () => randomUUID(),
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
  }).withTypeProvider<TypeBoxTypeProvider>();
  applyHttpTimeouts(app.server, config.http);
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  app.removeContentTypeParser('text/plain');
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // While Redis is unreachable or stalls, the counters fall back to this replica (failed
  // sign-ins) or are skipped (the request budget): never a 500, never a hung request. Commands
  // fail at once while disconnected (no offline queue) and give up after REDIS_COMMAND_TIMEOUT_MS
  // on a silent link; then the breaker leaves Redis alone for a few seconds.
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        lazyConnect: false,
        commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        socketTimeout: 10_000,
      })
    : undefined;
  const health = redis
    ? redisHealth(redis, 5000, (err) =>
        app.log.warn(
          { err: { message: err.message } },
          'redis failed or stalled: failed sign-ins are counted per replica and the request budget is not enforced until it answers again',
        ),
      )
    : undefined;
  if (redis) {
    let down = false;
    redis.on('error', (err) => {
      if (down) return;
      down = true;
      app.log.warn(
        { err: { message: err.message } },
        'redis unreachable: failed sign-ins are counted per replica and the request budget is not enforced until it is back',
      );
    });
    redis.on('ready', () => {
      if (down) app.log.info('redis reachable again: counters are shared by the replicas');
      down = false;
    });
    // Start with shared counters when Redis answers soon; otherwise start anyway, degraded.
    if (redis.status !== 'ready') {
      await new Promise<void>((resolve) => {
        const ready = (): void => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          redis.off('ready', ready);
          resolve();
        }, 2000);
        redis.once('ready', ready);
      });
    }
    app.addHook('onClose', async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
  }

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
  await app.register(audit, { stream: auditStream });
  // Right after the audit, so that its hooks run before authentication's: an upgrade request
  // refused (401, 403, 429) has its socket closed once answered, on every route.
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(swagger, {
    // Shared schemas keep their $id as their name in components.schemas (`Problem`, not `def-0`).
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'GSP control plane',
        version: '1.0.0',
        description: 'Game servers, fleets, profiles and API keys.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          basic: { type: 'http', scheme: 'basic' },
        },
      },
    },
  });
  // Before any route, so that it sees every one of them.
  await app.register(openapi);
  const { kubeconfig, namespace, apikeyPrefix } = config;
  await app.register(kube, { kubeconfig, namespace, apikeyPrefix, ...config.kube });
  await app.register(profiles);
  await app.register(agones, { redis, redisKeyPrefix: config.redisKeyPrefix });
  const metrics = createMetrics({ apiKeys: () => app.apikeys.size, apiKeysSynced: () => app.apikeys.ready });
  app.decorate('metrics', metrics);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.routeOptions.config.audit !== false) {
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.requests.inc({ method: request.method, route, code: reply.statusCode });
      metrics.duration.observe({ route }, reply.elapsedTime / 1000);
    }
    done();
  });
  const failures = redis
    ? redisFailureLimiter(
        redis,
        health!,
        config.redisKeyPrefix,
        config.rateLimit.authFailures,
        config.rateLimit.windowMs,
      )
    : localFailureLimiter(config.rateLimit.authFailures, config.rateLimit.windowMs);
  await app.register(auth, {
    modes: config.modes,
    basic: config.basic,
    oidc: config.oidc,
    roles: config.roles,
    apikeyPrefix: config.apikeyPrefix,
    failures,
    refused: (reason) => metrics.authFailures.inc({ reason }),
  });
  // Registered after auth so its per-route onRequest hook runs once the caller is known.
  await app.register(rateLimit, {
    global: true,
    max: config.rateLimit.max,
    timeWindow: config.rateLimit.windowMs,
    // While the breaker is open the budget is not asked of Redis at all, so no request waits on it.
    ...(redis
      ? { redis, nameSpace: `${config.redisKeyPrefix}rl:`, skipOnError: true, allowList: () => !health!.usable() }
      : {}),
    keyGenerator: budgetKey,
    errorResponseBuilder: (_request, context) =>
      new TooManyRequests(`rate limit of ${context.max} requests per ${context.after} exceeded`),
  });

  await app.register(opsRoutes);
  await app.register(sessionRoutes);
  await app.register(gameServerRoutes);
  await app.register(fleetRoutes);
  await app.register(profileRoutes);
  await app.register(consoleRoutes, {
    redis,
    redisKeyPrefix: config.redisKeyPrefix,
    ticketTtlMs: config.consoleTicketTtlMs,
  });
  await app.register(logRoutes);
  // Retention deletes snapshots with no request behind it; its lines go to the same audit stream.
  await app.register(snapshotRoutes, { writeAudit: (line) => auditStream.write(`${JSON.stringify(line)}\n`) });
  await app.register(apiKeyRoutes, {
    keyPrefix: config.apikeyPrefix,
    roles: config.roles,
    maxTtlMs: config.apikeyMaxTtlMs,
  });
  return app;
}
