import { durationVar } from './config.js';
import type { Env } from './config.js';

/** How long a client may take to send its request; a slow or stalled client is cut off after this. */
export interface HttpTimeouts {
  /** `HTTP_HEADERS_TIMEOUT`: the request line and headers (Node's `headersTimeout`). */
  headersTimeoutMs: number;
  /** `HTTP_REQUEST_TIMEOUT`: the whole request, body included (Node's `requestTimeout`); answers may stream longer. */
  requestTimeoutMs: number;
  /** `HTTP_KEEP_ALIVE_TIMEOUT`: an idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
}

/**
 * The timeouts every HTTP server of ours applies to its clients, from one set of variables.
 * They bound receiving a request, not sending the answer, so watches, logs and consoles are not cut.
 */
export function httpTimeouts(env: Env): HttpTimeouts {
  const headersTimeoutMs = durationVar(env, 'HTTP_HEADERS_TIMEOUT', 10_000, 100);
  const requestTimeoutMs = durationVar(env, 'HTTP_REQUEST_TIMEOUT', 30_000, 100);
  return {
    headersTimeoutMs: Math.min(headersTimeoutMs, requestTimeoutMs),
    requestTimeoutMs,
    // kubectl and client-go keep idle connections for 90 s; closing before they do spares them a failed reuse.
    keepAliveTimeoutMs: durationVar(env, 'HTTP_KEEP_ALIVE_TIMEOUT', 72_000, 100),
  };
}

/**
 * Applies `t` to a Node HTTP(S) server (what Fastify's `serverFactory` returns, or `app.server`),
 * before it listens.
 */
export function applyHttpTimeouts(
  server: {
    headersTimeout: number;
    requestTimeout: number;
    keepAliveTimeout: number;
    connectionsCheckingInterval?: number;
  },
  t: HttpTimeouts,
): void {
  server.headersTimeout = t.headersTimeoutMs;
  server.requestTimeout = t.requestTimeoutMs;
  server.keepAliveTimeout = t.keepAliveTimeoutMs;
  // Node looks for expired requests only this often (30 s by default, read when listening starts),
  // so a stalled client would otherwise hold its connection up to 30 s past the timeout.
  server.connectionsCheckingInterval = Math.max(50, Math.min(1000, Math.floor(t.headersTimeoutMs / 4)));
}
