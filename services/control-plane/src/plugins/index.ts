import type { Writable } from 'node:stream';
import rateLimit from '@fastify/rate-limit';
import websocket from '@fastify/websocket';
import type { WebsocketPluginOptions } from '@fastify/websocket';
import type { onErrorAsyncHookHandler } from 'fastify';
import { problems, registerOpenApi } from '@gsp/service-kit';
import type { OpenApiOptions, ServiceApp } from '@gsp/service-kit';
import type { ControlPlaneConfig } from '../config/index.js';
import { failureLimiter } from '../auth/failures.js';
import { openAuditExport } from '../audit-export/index.js';
import type { AuditExport } from '../audit-export/index.js';
import { MAX_FRAME_BYTES, isClientProtocolError } from '../terminal/protocol.js';
import { ServiceUnavailable, withRetryAfter } from '../errors.js';
import type { Retryable } from '../errors.js';
import { createMetrics } from '../metrics.js';
import type { ControlPlaneMetrics } from '../metrics.js';
import audit from './audit.js';
import redis from './redis.js';
import kube from './kube.js';
import apikeys from './apikeys.js';
import tickets from './tickets.js';
import panelSessions from './panel-sessions.js';
import auth from './auth.js';
import profiles from './profiles.js';
import agones from './agones.js';
import openapi from './openapi.js';
import { requestBudget } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Served on METRICS_PORT by server.ts, never on the API port. */
    metrics: ControlPlaneMetrics;
    /** The audit spool and its shipper, when a sink is configured. */
    auditExport: AuditExport | undefined;
  }
}

const OPENAPI_DOCUMENT: OpenApiOptions = {
  title: 'GSP control plane',
  description: 'Game servers, fleets, profiles and API keys.',
  securitySchemes: {
    apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    basic: { type: 'http', scheme: 'basic' },
  },
};

const WEBSOCKETS: WebsocketPluginOptions = {
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
};

/** An error that says when to try again (the cluster unreachable or throttling us) says it in Retry-After. */
const sayRetryAfter: onErrorAsyncHookHandler = async (_request, reply, error) => {
  const retryAfter = (error as Retryable).retryAfter;
  if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
};

/**
 * The audit line of every request on `auditStream`, and, when a sink is configured, in the spool it is exported
 * from.
 */
async function registerAudit(
  app: ServiceApp,
  config: ControlPlaneConfig,
  auditStream: Writable,
): Promise<AuditExport | undefined> {
  const auditExport = await openAuditExport(config.auditExport, config.auditSpool, config.replicaId);
  app.decorate('auditExport', auditExport);
  await app.register(audit, {
    stream: auditStream,
    spool: auditExport?.spool,
    apikeyPrefix: config.apikeyPrefix,
    basicPassword: config.basic?.password,
  });
  if (auditExport) {
    // AUDIT_SPOOL_FULL=block: while the spool is full, no request runs unrecorded (fail closed).
    app.addHook('onRequest', (request, _reply, done) => {
      if (!auditExport.blocked() || request.routeOptions.config.audit === false) return done();
      auditExport.refused(request.id);
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
  return auditExport;
}

/** `app.metrics`: requests counted as they finish; the audit export's own once the app is ready. */
function registerMetrics(app: ServiceApp, auditExport: AuditExport | undefined): ControlPlaneMetrics {
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
  return metrics;
}

/**
 * The plugins the routes rely on, in the order their hooks must run. Each is registered on the
 * root with its own await, not inside one wrapping plugin: Fastify's plugin timeout would then
 * bound the sum of their start times (the Redis plugin alone may wait 2 s for an absent Redis).
 */
export async function registerPlugins(
  app: ServiceApp,
  config: ControlPlaneConfig,
  auditStream: Writable,
): Promise<void> {
  await app.register(problems, { ownCodePrefix: 'CP_' });
  app.addHook('onError', sayRetryAfter);
  const auditExport = await registerAudit(app, config, auditStream);
  // Right after the audit, so that its hooks run before authentication's: an upgrade request
  // refused (401, 403, 429) has its socket closed once answered, on every route.
  await app.register(websocket, WEBSOCKETS);
  await registerOpenApi(app, OPENAPI_DOCUMENT);
  // Before any route, so that it sees every one of them.
  await app.register(openapi);
  await app.register(redis, { url: config.redisUrl, keyPrefix: config.redisKeyPrefix });
  await app.register(kube, { kubeconfig: config.kubeconfig, namespace: config.namespace, ...config.kube });
  await app.register(apikeys, { prefix: config.apikeyPrefix });
  await app.register(profiles);
  await app.register(agones);
  const metrics = registerMetrics(app, auditExport);
  await app.register(panelSessions, { panel: config.panel, basic: config.basic });
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
  await app.register(rateLimit, requestBudget(config.rateLimit, app.redis));
}
