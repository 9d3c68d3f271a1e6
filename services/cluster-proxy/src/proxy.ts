import http2 from 'node:http2';
import type { Http2Session } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import pg from 'pg';
import { Code, ConnectError } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { createFlagsClient, CLI_ACCESS_ENABLED } from '@gsp/flags-client';
import type { FlagsClient } from '@gsp/flags-client';
import type { ClusterProxyConfig } from './config.js';
import {
  applyHttpTimeouts,
  clientErrorHandler,
  generateSelfSignedCertificate,
  problems,
  sendProblem,
  serveMetrics,
} from '@gsp/service-kit';
import type { Server as HttpsServer } from 'node:https';
import { AccessDenied, createSwitch, createTokenVerifier } from './access.js';
import { Rights } from './rights.js';
import type { Right } from './rights.js';
import { ACCESS_CHANGED_EVENT, isAccessEvent } from '@gsp/platform-contract';
import type { Tunnel } from './tunnel/tunnel.js';
import { TunnelRegistry } from './tunnel/tunnel.js';
import { createMetrics } from './metrics.js';
import type { ProxyMetrics } from './metrics.js';
import { TUNNEL_WINDOW_BYTES, useNodeTextEncoding } from '@gsp/tunnel-proto';
import { tunnelRoutes } from './tunnel/service.js';
import { tunnelPort } from './tunnel/port.js';
import { HEALTH, KUBECTL_PORT_DOCUMENT, READY } from './openapi.js';
import { keepAlive } from './tunnel/keepalive.js';
import { forwardRequest, forwardUpgrade, status } from './kube/forward.js';
import type { StreamCut } from './tunnel/tunnel.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';

export interface ClusterProxy {
  /** The kubectl side (PORT). */
  app: FastifyInstance<HttpsServer>;
  tunnelServer: http2.Http2Server | http2.Http2SecureServer;
  registry: TunnelRegistry;
  metrics: ProxyMetrics;
  flags: FlagsClient;
  rights: Rights;
  /** Re-checks every live tunnel and stream now and closes those whose switch is off or whose right ended. */
  sweep(): Promise<void>;
  listen(): Promise<{ url: string; tunnelUrl: string; metricsUrl: string }>;
  close(): Promise<void>;
}

const CLUSTER_PATH = /^\/clusters\/([^/?]+)(\/[^?]*)?(\?.*)?$/;
const MALFORMED_ESCAPE = /%(?![0-9A-Fa-f]{2})/;
const REASONS: Readonly<Record<Exclude<Right, { allowed: true }>['status'], string>> = {
  403: 'Forbidden',
  404: 'NotFound',
  503: 'ServiceUnavailable',
};
/** Every query to the API server's database: a stalled store fails over to the caches instead of holding requests. */
const DATABASE_TIMEOUT_MS = 2000;

class ProxyRefusal extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly reason: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export async function buildClusterProxy(
  config: ClusterProxyConfig,
  logger: FastifyServerOptions['logger'] = { level: config.logLevel },
): Promise<ClusterProxy> {
  useNodeTextEncoding();
  // kubectl sends bearer tokens only over TLS, so PORT always speaks HTTPS.
  const https = config.tls ?? generateSelfSignedCertificate('gsp-cluster-proxy');
  let serveCluster: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
  const app = Fastify({
    logger,
    https,
    serverFactory: (handler) => {
      const server = createHttpsServer(https, (req, res) => {
        if (req.url?.startsWith('/clusters/')) serveCluster(req, res);
        else handler(req, res);
      });
      // They bound receiving a request only: watches and logs stream on, and an upgraded exec leaves the parser.
      applyHttpTimeouts(server, config.http);
      return server;
    },
    // A path Fastify cannot decode (`/%zz`) and bytes that are not HTTP get problem+json like the rest
    // (answered here: this reply was made before the problems handler was registered).
    frameworkErrors: (error, request, reply) => sendProblem(request, reply, error.statusCode ?? 400, error.message),
    clientErrorHandler,
  });
  // Everything but `/clusters/...` (kubectl's, answered with Kubernetes `Status` bodies) speaks problem+json.
  await app.register(problems, { ownCodePrefix: 'PROXY_' });
  if (config.tls === undefined) {
    app.log.warn(
      'no TLS_CERT_FILE: serving a self-signed certificate (the API server needs PROXY_CA_FILE or PROXY_INSECURE_SKIP_TLS_VERIFY for kubeconfigs to trust it)',
    );
  }
  // query_timeout also drops the connection of a query that never answers (a stalled link), so the pool recovers.
  const pool = new pg.Pool({
    connectionString: config.databaseUrl,
    connectionTimeoutMillis: DATABASE_TIMEOUT_MS,
    query_timeout: DATABASE_TIMEOUT_MS,
    max: 5,
  });
  pool.on('error', (err) => app.log.warn({ err }, 'postgres connection error'));
  const flags = createFlagsClient({
    pool,
    redisUrl: config.redisUrl,
    redisPrefix: config.redisKeyPrefix,
    redisConnectionName: `${config.redisKeyPrefix}cluster-proxy`,
    ttlMs: config.flagsCacheTtlMs,
    env: config.flagEnv,
    logger: app.log,
  });
  const cliAccess = createSwitch(flags, config.staleMode);
  const rights = new Rights({
    db: pool,
    platformId: config.platformId,
    ttlMs: config.flagsCacheTtlMs,
    staleMode: config.staleMode,
  });
  const verifyToken = createTokenVerifier(config.apiServerUrl);
  const registry = new TunnelRegistry();
  const metrics = createMetrics(() => registry.all().length);
  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> | undefined;

  /** Authenticates the caller and applies the switch; returns the tunnel, the API path and the user. */
  async function admit(
    req: IncomingMessage,
  ): Promise<{ tunnel: NonNullable<ReturnType<TunnelRegistry['get']>>; path: string; user: string }> {
    const match = CLUSTER_PATH.exec(req.url ?? '');
    if (!match?.[1])
      throw new ProxyRefusal(404, 'use the server URL /clusters/{id} from the downloaded kubeconfig', 'NotFound');
    let clusterId: string;
    try {
      clusterId = decodeURIComponent(match[1]);
    } catch {
      const message = 'the cluster id in the path is not valid percent-encoding';
      throw new ProxyRefusal(400, `${message}: use the server URL from the downloaded kubeconfig`, 'BadRequest');
    }
    // kube-apiserver (Go's HTTP server) refuses such a path before any handler; refused here, it spares the tunnel.
    if (MALFORMED_ESCAPE.test(match[2] ?? '')) {
      throw new ProxyRefusal(
        400,
        'the path holds a malformed percent-encoding (a "%" not followed by two hex digits)',
        'BadRequest',
      );
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer)
      throw new ProxyRefusal(
        401,
        'a bearer token is required: download a kubeconfig from the platform',
        'Unauthorized',
        { 'www-authenticate': 'Bearer' },
      );
    let user: string;
    try {
      user = await verifyToken(bearer, clusterId);
    } catch (err) {
      if (err instanceof AccessDenied)
        throw new ProxyRefusal(401, err.message, 'Unauthorized', {
          'www-authenticate': 'Bearer error="invalid_token"',
        });
      throw err;
    }
    // Both checks at once (a stalled store then costs one wait, not two), but the switch is heard
    // first: while it is off (or, in strict mode, unknown) kubectl hears the policy.
    const pending = rights.kubectl(clusterId, user);
    const decision = await cliAccess(clusterId);
    if (!decision.allowed) throw new ProxyRefusal(410, decision.message, 'Gone');
    const right = await pending;
    if (!right.allowed) throw new ProxyRefusal(right.status, right.message, REASONS[right.status]);
    const tunnel = registry.get(clusterId);
    if (!tunnel)
      throw new ProxyRefusal(
        502,
        `cluster ${clusterId} has no connected tunnel agent; check that the agent runs and can reach the proxy`,
        'BadGateway',
      );
    return { tunnel, path: `${match[2] ?? '/'}${match[3] ?? ''}`, user };
  }

  /** A refusal as kube-apiserver would answer it: a `Status` body kubectl prints, and a Warning header. */
  function refuse(res: ServerResponse, refusal: ProxyRefusal): void {
    // Exactly `application/json`, as kube-apiserver sends: client-go's discovery client cannot
    // negotiate a decoder for a charset parameter and would hide the message.
    const body = JSON.stringify(status(refusal.statusCode, refusal.message, refusal.reason));
    // kubectl's discovery client drops error bodies; a Warning header is printed whatever the request.
    const warning = `299 - ${JSON.stringify(refusal.message.replace(/[^\x20-\x7e]/g, '?'))}`;
    res.writeHead(refusal.statusCode, {
      ...refusal.headers,
      warning,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  }

  /**
   * `/clusters/{id}/...`, the kubectl traffic, is served here before Fastify sees it: it is
   * forwarded as a byte stream, and routing, hooks and a reply object per request would cost
   * about a tenth of the proxy's CPU for nothing.
   */
  serveCluster = (req, res) => {
    admit(req).then(
      ({ tunnel, path, user }) => forwardRequest(tunnel, req, res, path, user, metrics),
      (err: unknown) => {
        metrics.requests.inc({ kind: 'request', code: err instanceof ProxyRefusal ? err.statusCode : 500 });
        if (err instanceof ProxyRefusal) {
          app.log.info(
            { method: req.method, url: req.url, status: err.statusCode, reason: err.message },
            'request refused',
          );
          refuse(res, err);
        } else {
          app.log.error({ err, method: req.method, url: req.url }, 'request failed');
          refuse(res, new ProxyRefusal(500, 'the proxy failed to handle the request', 'InternalError'));
        }
      },
    );
  };

  app.get('/healthz', { schema: { response: { 200: HEALTH } } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { response: { 200: READY } } }, async () => ({
    status: 'ok',
    tunnels: registry.all().length,
  }));
  app.get('/openapi.json', async () => KUBECTL_PORT_DOCUMENT);
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    if (!req.url?.startsWith('/clusters/')) {
      const detail = `No route ${req.method} ${req.url?.split('?')[0]}`;
      const body = JSON.stringify({ type: 'urn:gsp:problem:not-found', title: 'Not Found', status: 404, detail });
      const notFound = 'HTTP/1.1 404 Not Found\r\ncontent-type: application/problem+json';
      socket.end(`${notFound}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
      return;
    }
    admit(req).then(
      ({ tunnel, path, user }) => forwardUpgrade(tunnel, req, socket, head, path, user, metrics),
      (err: unknown) => {
        const refusal = err instanceof ProxyRefusal ? err : new ProxyRefusal(500, 'the proxy failed', 'InternalError');
        metrics.requests.inc({ kind: 'upgrade', code: refusal.statusCode });
        if (!(err instanceof ProxyRefusal)) app.log.error({ err }, 'upgrade failed');
        const body = JSON.stringify(status(refusal.statusCode, refusal.message, refusal.reason));
        socket.end(
          `HTTP/1.1 ${refusal.statusCode} ${refusal.reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
        );
      },
    );
  });

  // No compression on the tunnel: batches are small and latency-bound, and bodies that are worth
  // compressing usually already are (kubectl asks the API server for gzip). The Connect protocol
  // only, as the agent speaks it: the port then has one request shape to describe and check.
  const rpc = connectNodeAdapter({
    routes: tunnelRoutes({ pool, registry, cliAccess, log: app.log, metrics }),
    acceptCompression: [],
    grpc: false,
    grpcWeb: false,
  });
  const tunnelHandler = tunnelPort(rpc);
  const settings = { initialWindowSize: TUNNEL_WINDOW_BYTES };
  // Agents dial in over the internet with a bearer token: TLS here, or in front of the proxy.
  const tunnelServer: http2.Http2Server | http2.Http2SecureServer = config.tunnelTls
    ? http2.createSecureServer({ ...config.tunnelTls, settings, ALPNProtocols: ['h2'] }, tunnelHandler)
    : http2.createServer({ settings }, tunnelHandler);
  const sessions = new Set<Http2Session>();
  // Frames are small and latency-bound: never wait for Nagle.
  tunnelServer.on('connection', (socket: Socket) => socket.setNoDelay(true));
  tunnelServer.on('session', (session) => {
    sessions.add(session);
    session.setLocalWindowSize(TUNNEL_WINDOW_BYTES);
    keepAlive(session, config.pingIntervalMs);
    session.on('close', () => sessions.delete(session));
  });

  let sweeping: Promise<void> | undefined;
  let again = false;
  /** Closes a tunnel whose cluster was deleted or whose agent token was replaced; the agent's reconnect is then refused. */
  function revokeTunnel(tunnel: Tunnel, reason: 'cluster_deleted' | 'agent_token_rotated'): void {
    if (tunnel.closed) return;
    const message =
      reason === 'cluster_deleted'
        ? `cluster ${tunnel.clusterId} was deleted from the platform`
        : `the agent token of cluster ${tunnel.clusterId} was rotated`;
    app.log.info({ clusterId: tunnel.clusterId, reason }, 'closing tunnel: its right ended');
    metrics.closedByRevocation.inc({ what: 'tunnel', reason });
    // A deleted cluster is gone for good (404); a rotated token is the agent's business, kubectl may retry (503).
    const cut: StreamCut = { code: reason === 'cluster_deleted' ? 404 : 503, message };
    tunnel.close(cut, new ConnectError(message, Code.Unauthenticated));
  }

  async function sweepTunnel(tunnel: Tunnel): Promise<void> {
    // A store that cannot be read closes nothing here (requests are refused meanwhile in strict mode).
    const cluster = await rights.cluster(tunnel.clusterId).catch(() => null);
    if (cluster === undefined) return revokeTunnel(tunnel, 'cluster_deleted');
    if (cluster !== null && cluster.agentTokenHash !== tunnel.agentTokenHash)
      return revokeTunnel(tunnel, 'agent_token_rotated');
    const decision = await cliAccess(tunnel.clusterId);
    if (!decision.allowed && !tunnel.closed) {
      app.log.info({ clusterId: tunnel.clusterId }, 'closing tunnel: CLI access turned off');
      metrics.tunnelsClosedBySwitch.inc();
      tunnel.close({ code: 410, message: decision.message }, new ConnectError(decision.message, Code.Unavailable));
      return;
    }
    for (const subject of tunnel.subjects()) {
      const right = await rights.kubectl(tunnel.clusterId, subject);
      // Only a right that has ended closes streams; an unreadable store (503) leaves them be.
      if (right.allowed || right.status === 503) continue;
      const closed = tunnel.closeStreamsOf(subject, { code: right.status, message: right.message });
      if (closed > 0) {
        app.log.info(
          { clusterId: tunnel.clusterId, subject, streams: closed },
          'closing streams: the subject lost access',
        );
        metrics.closedByRevocation.inc({ what: 'stream', reason: 'member' }, closed);
      }
    }
  }

  async function sweepOnce(): Promise<void> {
    for (const tunnel of registry.all()) await sweepTunnel(tunnel);
  }
  /** Coalesces: at most one sweep runs, and one more follows if asked for meanwhile. */
  function sweep(): Promise<void> {
    if (sweeping) {
      again = true;
      return sweeping;
    }
    sweeping = (async () => {
      try {
        do {
          again = false;
          await sweepOnce();
        } while (again);
      } catch (err) {
        app.log.warn({ err }, 'tunnel sweep failed');
      } finally {
        sweeping = undefined;
      }
    })();
    return sweeping;
  }
  const unsubscribeFlags = flags.onChange(CLI_ACCESS_ENABLED, () => void sweep());
  // A membership change, a deleted cluster or a rotated agent token: drop what it may have changed
  // and re-check every live tunnel and stream against the store (a tunnel whose agent already came
  // back with the new token compares equal and stays).
  const unsubscribeAccess = flags.eventBus.subscribe(ACCESS_CHANGED_EVENT, {
    event(event) {
      if (!isAccessEvent(event)) return;
      rights.forget(event);
      void sweep();
    },
    resync() {
      rights.forgetAll();
      void sweep();
    },
  });
  const timer = setInterval(() => void sweep(), config.watchIntervalMs);
  timer.unref();
  let closing: Promise<void> | undefined;

  return {
    app,
    tunnelServer,
    registry,
    metrics,
    flags,
    rights,
    sweep,
    async listen() {
      const url = await app.listen({ port: config.port, host: config.host });
      await new Promise<void>((resolve, reject) => {
        tunnelServer.once('error', reject);
        tunnelServer.listen(config.tunnelPort, config.host, () => resolve());
      });
      const { port } = tunnelServer.address() as AddressInfo;
      metricsServer = await serveMetrics(metrics.registry, config.metricsPort, config.host, { http: config.http });
      return {
        url,
        tunnelUrl: `${config.tunnelTls ? 'https' : 'http'}://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
        metricsUrl: metricsServer.url,
      };
    },
    close() {
      // Once: a test (or a second signal) may ask again while the first close runs.
      closing ??= shutDown();
      return closing;
    },
  };

  async function shutDown(): Promise<void> {
    clearInterval(timer);
    await metricsServer?.close();
    unsubscribeFlags();
    unsubscribeAccess();
    const shutdown = 'the proxy is shutting down';
    for (const tunnel of registry.all()) {
      tunnel.close({ code: 503, message: shutdown }, new ConnectError(shutdown, Code.Unavailable));
    }
    await new Promise<void>((resolve) => {
      if (!tunnelServer.listening) return resolve();
      tunnelServer.close(() => resolve());
      for (const s of sessions) s.close();
      setTimeout(() => {
        for (const s of sessions) s.destroy();
      }, 1000).unref();
    });
    app.server.closeAllConnections();
    await app.close();
    await flags.close();
    await pool.end();
  }
}
