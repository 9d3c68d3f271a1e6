import fp from 'fastify-plugin';
import type { Writable } from 'node:stream';

export interface AuditPluginOptions {
  /** Where audit lines go: standard output in production, a capture in tests. */
  stream: Writable;
}

export interface AuditLine {
  timestamp: string;
  level: 'audit';
  user: string;
  role: string;
  method: string;
  path: string;
  clientIP: string;
  userAgent: string;
  result: 'success' | 'failure';
  status: number;
  requestId: string;
  authMethod: string;
  durationMs: number;
}

/** Status recorded for a request whose client went away before the response was complete. */
const CLIENT_CLOSED = 499;

/**
 * One JSON line per request (health probes excepted), written when the response is finished
 * or the connection closed early, so 401s, 429s and aborted requests are audited too. Only the
 * path is kept (a query string may carry anything), and no header but the user agent.
 */
export default fp<AuditPluginOptions>(
  async (app, opts) => {
    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.config.audit === false) return;
      const started = performance.now();
      reply.raw.once('close', () => {
        const finished = reply.raw.writableFinished;
        const status = finished ? reply.raw.statusCode : CLIENT_CLOSED;
        const principal = request.principal;
        const line: AuditLine = {
          timestamp: new Date().toISOString(),
          level: 'audit',
          user: principal?.username ?? '',
          role: principal?.role ?? '',
          method: request.method,
          path: request.url.split('?')[0] ?? '',
          clientIP: request.ip,
          userAgent: (request.headers['user-agent'] ?? '').slice(0, 256),
          result: status < 400 ? 'success' : 'failure',
          status,
          requestId: request.id,
          authMethod: principal?.method ?? '',
          durationMs: Math.round((performance.now() - started) * 100) / 100,
        };
        opts.stream.write(`${JSON.stringify(line)}\n`);
      });
    });
  },
  { name: 'audit' },
);
