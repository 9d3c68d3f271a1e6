import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import {
  applyHttpTimeouts,
  bearerToken,
  clientErrorHandler,
  HEALTH_ROUTE,
  maxParamLengthFor,
  problems,
  sendProblem,
} from '@gsp/service-kit';
import type { HttpTimeouts } from '@gsp/service-kit';
import { SUBJECT_MAX_LENGTH } from '@gsp/platform-contract';
import { AccessDenied, KeysUnavailable } from '../access.js';
import type { SwitchDecision } from '../access.js';
import { forwardRequest, forwardUpgrade, status } from './forward.js';
import type { ProxyMetrics } from '../metrics.js';
import { DRAINING, KUBECTL_PORT_DOCUMENT, READY } from './openapi.js';
import type { Right, Rights } from '../rights.js';
import type { Tunnel, TunnelRegistry } from '../tunnel/tunnel.js';

const CLUSTER_PATH = /^\/clusters\/([^/?]+)(\/[^?]*)?(\?.*)?$/;
const MALFORMED_ESCAPE = /%(?![0-9A-Fa-f]{2})/;
const REASONS: Readonly<Record<Exclude<Right, { allowed: true }>['status'], string>> = {
  403: 'Forbidden',
  404: 'NotFound',
  503: 'ServiceUnavailable',
};

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

export interface KubectlFrontOptions {
  logger: FastifyServerOptions['logger'];
  /** PORT's certificate and key. */
  https: { cert: string; key: string };
  http: HttpTimeouts;
}

/** What admits and forwards kubectl's requests. */
export interface KubectlAccess {
  verifyToken(token: string, clusterId: string): Promise<string>;
  cliAccess(clusterId: string): Promise<SwitchDecision>;
  rights: Rights;
  registry: TunnelRegistry;
  metrics: ProxyMetrics;
  /** `TUNNEL_WAIT`: how long a request waits for its cluster's tunnel before it is refused. */
  tunnelWaitMs: number;
  /** Whether any replica holds a tunnel of the cluster now (agent presence). */
  agentConnected(clusterId: string): Promise<boolean>;
}

/**
 * An agent the switch turned away here within this long is reconnecting now that the switch is
 * on, not missing: longer than an agent's backoff ceiling (AGENT_BACKOFF_MAX, 30 s by default).
 */
const SWITCH_BACK_ON_MS = 60_000;
/**
 * What a refusal while the agent reconnects (or this replica drains) asks kubectl to wait; client-go retries
 * after it.
 */
const RETRY_AFTER_SECONDS = 1;

/** Who asks for which cluster's tunnel, once admitted. */
interface Admitted {
  tunnel: Tunnel;
  /** The Kubernetes API path and query. */
  path: string;
  user: string;
}

/**
 * The cluster's tunnel, waiting up to TUNNEL_WAIT for one (the agent may be redialling after a
 * replica restart or the switch coming back on). None: 503 with Retry-After when the agent is
 * reconnecting (another replica holds its tunnel, or the switch turned it away here lately) or
 * when this replica drains; otherwise 502 with the advice to check the agent.
 */
async function tunnelFor(req: IncomingMessage, clusterId: string, options: KubectlAccess, draining: () => boolean) {
  const now = options.registry.get(clusterId);
  if (now) return now;
  const gone = new AbortController();
  const abort = () => gone.abort();
  req.socket.once('close', abort);
  const tunnel = await options.registry
    .waitFor(clusterId, draining() ? 0 : options.tunnelWaitMs, gone.signal)
    .finally(() => req.socket.off('close', abort));
  if (tunnel) return tunnel;
  // The client went away while waiting: nobody reads the answer, so the database is not asked.
  if (gone.signal.aborted) throw new ProxyRefusal(499, 'the client closed the request', 'ClientClosedRequest');
  const retry = { 'retry-after': String(RETRY_AFTER_SECONDS) };
  if (draining())
    throw new ProxyRefusal(
      503,
      `this cluster proxy replica is shutting down; retry in a moment (another replica serves cluster ${clusterId})`,
      'ServiceUnavailable',
      retry,
    );
  if (options.registry.switchedOffWithin(clusterId, SWITCH_BACK_ON_MS) || (await options.agentConnected(clusterId)))
    throw new ProxyRefusal(
      503,
      `the agent of cluster ${clusterId} is reconnecting to the proxy; retry in a moment`,
      'ServiceUnavailable',
      retry,
    );
  throw new ProxyRefusal(
    502,
    `cluster ${clusterId} has no connected tunnel agent; check that the agent runs and can reach the proxy`,
    'BadGateway',
  );
}

/** Authenticates the caller and applies the switch; returns the tunnel, the API path and the user. */
async function admit(req: IncomingMessage, options: KubectlAccess, draining: () => boolean): Promise<Admitted> {
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
  const bearer = bearerToken(req.headers.authorization);
  if (!bearer)
    throw new ProxyRefusal(401, 'a bearer token is required: download a kubeconfig from the platform', 'Unauthorized', {
      'www-authenticate': 'Bearer',
    });
  let user: string;
  try {
    user = await options.verifyToken(bearer, clusterId);
  } catch (err) {
    if (err instanceof AccessDenied)
      throw new ProxyRefusal(401, err.message, 'Unauthorized', {
        'www-authenticate': 'Bearer error="invalid_token"',
      });
    if (err instanceof KeysUnavailable) throw new ProxyRefusal(503, err.message, 'ServiceUnavailable');
    throw err;
  }
  // Both checks at once (a stalled store then costs one wait, not two), but the switch is heard
  // first: while it is off (or, in strict mode, unknown) kubectl hears the policy.
  const pending = options.rights.kubectl(clusterId, user);
  const decision = await options.cliAccess(clusterId);
  if (!decision.allowed) throw new ProxyRefusal(410, decision.message, 'Gone');
  const right = await pending;
  if (!right.allowed) throw new ProxyRefusal(right.status, right.message, REASONS[right.status]);
  const tunnel = await tunnelFor(req, clusterId, options, draining);
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

/** A refusal of an upgrade, written on the socket (no response object exists for it). */
function refuseUpgrade(socket: Duplex, refusal: ProxyRefusal): void {
  const body = JSON.stringify(status(refusal.statusCode, refusal.message, refusal.reason));
  // The proxy's own headers (WWW-Authenticate, Retry-After): constants and digits, never the caller's text.
  const extra = Object.entries(refusal.headers).map(([name, value]) => `\r\n${name}: ${value}`);
  const head = `HTTP/1.1 ${refusal.statusCode} ${refusal.reason}\r\ncontent-type: application/json${extra.join('')}`;
  socket.end(`${head}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

/** An upgrade of a path outside `/clusters/`: nothing there upgrades. */
function upgradeNotFound(req: IncomingMessage, socket: Duplex): void {
  const detail = `No route ${req.method} ${req.url?.split('?')[0]}`;
  const body = JSON.stringify({ type: 'urn:gsp:problem:not-found', title: 'Not Found', status: 404, detail });
  const notFound = 'HTTP/1.1 404 Not Found\r\ncontent-type: application/problem+json';
  socket.end(`${notFound}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

export interface KubectlFront {
  app: FastifyInstance<HttpsServer>;
  /** Serves kubectl's requests, and the probes, with `access`: until then only Fastify's 404s answer. */
  serve(access: KubectlAccess): void;
  /**
   * The replica drains: /readyz answers 503, no new connection is accepted, idle keep-alive
   * connections are closed, and every answer from now on (and those not yet begun) carries
   * `Connection: close`, so each connection ends after its request in flight.
   */
  drain(): void;
  /** kubectl requests and upgraded streams in flight (a request waiting for a tunnel included). */
  readonly inFlight: number;
  /** Resolves when nothing is in flight. */
  idle(): Promise<void>;
}

/**
 * What is in flight on PORT: kubectl's answers not yet closed, and upgraded sockets; while the
 * replica drains, each connection closes once its last request is done.
 */
class InFlight {
  draining = false;
  private readonly answers = new Set<ServerResponse>();
  private readonly upgrades = new Set<Duplex>();
  private whenIdle: (() => void) | undefined;

  constructor(private readonly server: () => HttpsServer) {}

  get size(): number {
    return this.answers.size + this.upgrades.size;
  }

  /** An answer to kubectl, in flight until it closes. */
  track(res: ServerResponse): void {
    this.answers.add(res);
    if (this.draining) res.shouldKeepAlive = false;
    res.once('close', () => {
      this.answers.delete(res);
      this.settled();
    });
  }

  /** An upgraded stream, in flight until its socket closes. */
  trackUpgrade(socket: Duplex): void {
    this.upgrades.add(socket);
    socket.once('close', () => {
      this.upgrades.delete(socket);
      this.settled();
    });
  }

  drain(): void {
    if (this.draining) return;
    this.draining = true;
    // No new connection: the balancer sends it to another replica. Node also closes idle keep-alive connections.
    this.server().close();
    this.server().closeIdleConnections();
    for (const res of this.answers) if (!res.headersSent) res.shouldKeepAlive = false;
  }

  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const previous = this.whenIdle;
      this.whenIdle = () => {
        previous?.();
        resolve();
      };
    });
  }

  private settled(): void {
    if (!this.draining) return;
    // The connection of an answer that ended may be idle now; during a drain, idle ones close.
    setImmediate(() => this.server().closeIdleConnections());
    if (this.size === 0) this.whenIdle?.();
  }
}

/** Logs a refused or failed kubectl request and answers it as kube-apiserver would. */
function refused(app: FastifyInstance<HttpsServer>, req: IncomingMessage, res: ServerResponse, err: unknown): void {
  if (err instanceof ProxyRefusal) {
    app.log.info({ method: req.method, url: req.url, status: err.statusCode, reason: err.message }, 'request refused');
    refuse(res, err);
  } else {
    app.log.error({ err, method: req.method, url: req.url }, 'request failed');
    refuse(res, new ProxyRefusal(500, 'the proxy failed to handle the request', 'InternalError'));
  }
}

/**
 * `/clusters/{id}/...`, the kubectl traffic, is served here before Fastify sees it: it is
 * forwarded as a byte stream, and routing, hooks and a reply object per request would cost
 * about a tenth of the proxy's CPU for nothing.
 */
function clusterHandler(app: FastifyInstance<HttpsServer>, access: KubectlAccess, flight: InFlight) {
  const { metrics } = access;
  const isDraining = () => flight.draining;
  return (req: IncomingMessage, res: ServerResponse): void => {
    admit(req, access, isDraining).then(
      ({ tunnel, path, user }) => forwardRequest(tunnel, req, res, path, user, metrics),
      (err: unknown) => {
        metrics.requests.inc({ kind: 'request', code: err instanceof ProxyRefusal ? err.statusCode : 500 });
        refused(app, req, res, err);
      },
    );
  };
}

/** An upgrade (exec, attach, port-forward) of `/clusters/{id}/...`: admitted, then forwarded as raw bytes. */
function upgradeHandler(app: FastifyInstance<HttpsServer>, access: KubectlAccess, flight: InFlight) {
  const { metrics } = access;
  const isDraining = () => flight.draining;
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => undefined);
    if (!req.url?.startsWith('/clusters/')) return upgradeNotFound(req, socket);
    flight.trackUpgrade(socket);
    admit(req, access, isDraining).then(
      ({ tunnel, path, user }) => forwardUpgrade(tunnel, req, socket, head, path, user, metrics),
      (err: unknown) => {
        const refusal = err instanceof ProxyRefusal ? err : new ProxyRefusal(500, 'the proxy failed', 'InternalError');
        metrics.requests.inc({ kind: 'upgrade', code: refusal.statusCode });
        if (!(err instanceof ProxyRefusal)) app.log.error({ err }, 'upgrade failed');
        refuseUpgrade(socket, refusal);
      },
    );
  };
}

/** The probes and the document of PORT. */
function portRoutes(app: FastifyInstance<HttpsServer>, registry: TunnelRegistry, flight: InFlight): void {
  app.route(HEALTH_ROUTE);
  app.route({
    method: 'GET',
    url: '/readyz',
    schema: { response: { 200: READY, 503: DRAINING } },
    handler: async (_request, reply) => {
      const tunnels = registry.all().length;
      // The balancer (a Kubernetes Service) stops sending new connections here; those open finish.
      if (flight.draining) return reply.code(503).send({ status: 'draining', tunnels });
      return { status: 'ok', tunnels };
    },
  });
  app.route({ method: 'GET', url: '/openapi.json', handler: async () => KUBECTL_PORT_DOCUMENT });
}

/**
 * PORT, what faces kubectl: HTTPS (kubectl sends bearer tokens only over TLS). `/clusters/{id}/...`
 * is admitted and forwarded through the cluster's tunnel, refusals answered as Kubernetes `Status`
 * bodies; everything else (probes, `/openapi.json`) is Fastify's and speaks problem+json.
 */
export async function createKubectlFront(options: KubectlFrontOptions): Promise<KubectlFront> {
  let serveCluster: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
  const flight = new InFlight(() => app.server);
  const app = Fastify({
    logger: options.logger,
    https: options.https,
    // `/clusters/...` never reaches Fastify; a subject is the longest identifier the proxy handles.
    routerOptions: { maxParamLength: maxParamLengthFor(SUBJECT_MAX_LENGTH) },
    serverFactory: (handler) => {
      const server = createHttpsServer(options.https, (req, res) => {
        if (req.url?.startsWith('/clusters/')) {
          flight.track(res);
          serveCluster(req, res);
        } else {
          // Probes and the document are not waited for, but their connections end too while draining.
          if (flight.draining) res.shouldKeepAlive = false;
          handler(req, res);
        }
      });
      // They bound receiving a request only: watches and logs stream on, and an upgraded exec leaves the parser.
      applyHttpTimeouts(server, options.http);
      return server;
    },
    // A path Fastify cannot decode (`/%zz`) and bytes that are not HTTP get problem+json like the rest
    // (answered here: this reply was made before the problems handler was registered).
    frameworkErrors: (error, request, reply) => sendProblem(request, reply, error.statusCode ?? 400, error.message),
    clientErrorHandler,
  });
  // Everything but `/clusters/...` (kubectl's, answered with Kubernetes `Status` bodies) speaks problem+json.
  await app.register(problems, { ownCodePrefix: 'PROXY_' });
  return {
    app,
    serve(access) {
      serveCluster = clusterHandler(app, access, flight);
      portRoutes(app, access.registry, flight);
      app.server.on('upgrade', upgradeHandler(app, access, flight));
    },
    drain: () => flight.drain(),
    get inFlight() {
      return flight.size;
    },
    idle: () => flight.idle(),
  };
}
