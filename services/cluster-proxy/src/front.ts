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
import { AccessDenied, KeysUnavailable } from './access.js';
import type { SwitchDecision } from './access.js';
import { forwardRequest, forwardUpgrade, status } from './forward.js';
import type { ProxyMetrics } from './metrics.js';
import { KUBECTL_PORT_DOCUMENT, READY } from './openapi.js';
import type { Right, Rights } from './rights.js';
import type { Tunnel, TunnelRegistry } from './tunnel/tunnel.js';

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
}

/** Who asks for which cluster's tunnel, once admitted. */
interface Admitted {
  tunnel: Tunnel;
  /** The Kubernetes API path and query. */
  path: string;
  user: string;
}

/** Authenticates the caller and applies the switch; returns the tunnel, the API path and the user. */
async function admit(req: IncomingMessage, options: KubectlAccess): Promise<Admitted> {
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
  const tunnel = options.registry.get(clusterId);
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

/** A refusal of an upgrade, written on the socket (no response object exists for it). */
function refuseUpgrade(socket: Duplex, refusal: ProxyRefusal): void {
  const body = JSON.stringify(status(refusal.statusCode, refusal.message, refusal.reason));
  const head = `HTTP/1.1 ${refusal.statusCode} ${refusal.reason}\r\ncontent-type: application/json`;
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
}

/**
 * PORT, what faces kubectl: HTTPS (kubectl sends bearer tokens only over TLS). `/clusters/{id}/...`
 * is admitted and forwarded through the cluster's tunnel, refusals answered as Kubernetes `Status`
 * bodies; everything else (probes, `/openapi.json`) is Fastify's and speaks problem+json.
 */
export async function createKubectlFront(options: KubectlFrontOptions): Promise<KubectlFront> {
  let serveCluster: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
  const app = Fastify({
    logger: options.logger,
    https: options.https,
    // `/clusters/...` never reaches Fastify; a subject is the longest identifier the proxy handles.
    routerOptions: { maxParamLength: maxParamLengthFor(SUBJECT_MAX_LENGTH) },
    serverFactory: (handler) => {
      const server = createHttpsServer(options.https, (req, res) => {
        if (req.url?.startsWith('/clusters/')) serveCluster(req, res);
        else handler(req, res);
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

  function serve(access: KubectlAccess): void {
    const { metrics, registry } = access;
    /**
     * `/clusters/{id}/...`, the kubectl traffic, is served here before Fastify sees it: it is
     * forwarded as a byte stream, and routing, hooks and a reply object per request would cost
     * about a tenth of the proxy's CPU for nothing.
     */
    serveCluster = (req, res) => {
      admit(req, access).then(
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

    app.route(HEALTH_ROUTE);
    app.route({
      method: 'GET',
      url: '/readyz',
      schema: { response: { 200: READY } },
      handler: async () => ({ status: 'ok', tunnels: registry.all().length }),
    });
    app.route({ method: 'GET', url: '/openapi.json', handler: async () => KUBECTL_PORT_DOCUMENT });
    app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => undefined);
      if (!req.url?.startsWith('/clusters/')) return upgradeNotFound(req, socket);
      admit(req, access).then(
        ({ tunnel, path, user }) => forwardUpgrade(tunnel, req, socket, head, path, user, metrics),
        (err: unknown) => {
          const refusal =
            err instanceof ProxyRefusal ? err : new ProxyRefusal(500, 'the proxy failed', 'InternalError');
          metrics.requests.inc({ kind: 'upgrade', code: refusal.statusCode });
          if (!(err instanceof ProxyRefusal)) app.log.error({ err }, 'upgrade failed');
          refuseUpgrade(socket, refusal);
        },
      );
    });
  }

  return { app, serve };
}
