import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import { clientErrorHandler, createServiceApp, sendProblem } from '@gsp/service-kit';
import type { ControlPlaneConfig } from './config/index.js';
import { AuditLogFile } from './audit-log-file.js';
import { clientErrorStatus, frameworkProblem, seenOf } from './early-errors.js';
import { registerPlugins } from './plugins/index.js';
import { registerRoutes } from './routes.js';

export const BODY_LIMIT = 16 * 1024;

export interface BuildOptions {
  /** The application log (Fastify's logger option); production writes it to standard error. */
  logger?: FastifyServerOptions['logger'];
  /** Where audit lines go; standard output unless a test captures them. */
  auditStream?: Writable;
}

/**
 * Builds the control plane: the Fastify instance with its early-error handling, then the plugins
 * (src/plugins/index.ts) and the routes (src/routes.ts). Tests build it the same way with
 * their own config, logger and audit stream.
 */
export async function buildApp(config: ControlPlaneConfig, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = createServiceApp({
    logger: options.logger ?? { level: config.logLevel, stream: process.stderr },
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
  const auditStream = options.auditStream ?? auditDestination(app, config);
  await registerPlugins(app, config, auditStream);
  await registerRoutes(app, config, auditStream);
  return app;
}

/**
 * Where audit lines go: standard output, or the file of AUDIT_LOG_FILE. The file is closed by the
 * first onClose hook registered, which runs last: after the consoles and feeds that end during
 * the close have written their lines.
 */
function auditDestination(app: FastifyInstance, config: ControlPlaneConfig): Writable {
  if (config.auditLogFile === undefined) return process.stdout;
  const file = AuditLogFile.open(config.auditLogFile);
  file.on('error', (err) => app.log.error({ err: { message: err.message } }, 'an audit line could not be written'));
  app.addHook('onClose', async () => void file.end());
  return file;
}
