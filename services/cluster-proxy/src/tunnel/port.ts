import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { contentTypeStreamRegExp } from '@connectrpc/connect/protocol-connect';
import { TunnelService } from '@gsp/tunnel-proto';
import { CLIENT_ERROR_RESPONSES, documentOperation, PROBLEM, problemResponse, writeProblem } from '@gsp/service-kit';

/** The one RPC of TUNNEL_PORT. */
export const CONNECT_PATH = `/${TunnelService.typeName}/${TunnelService.method.connect.name}`;

/** `/openapi.json` of TUNNEL_PORT, the agents' side (HTTP/2 only). */
export const TUNNEL_PORT_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'GSP cluster proxy (tunnel port)',
    version: '1.0.0',
    description:
      'Tunnel agents dial in here over HTTP/2 and open one Connect-protocol bidirectional stream, which then carries ' +
      'the kubectl requests for their cluster (gsp.tunnel.v1, see packages/tunnel-proto/proto). Errors outside the RPC are application/problem+json.',
  },
  components: {
    securitySchemes: {
      agentToken: {
        type: 'http',
        scheme: 'bearer',
        description: 'The agent token returned when the cluster was registered (or its token last rotated).',
      },
    },
    schemas: { Problem: PROBLEM },
  },
  paths: {
    [CONNECT_PATH]: {
      post: {
        operationId: 'connect',
        tags: ['tunnel'],
        summary: "Open the tunnel of the token's cluster; a later connection of the same cluster replaces it",
        security: [{ agentToken: [] }],
        parameters: [
          {
            name: 'x-gsp-cluster-id',
            in: 'header',
            required: false,
            schema: { type: 'string' },
            description:
              'The cluster the agent believes it serves; a token of another cluster is refused (permission_denied).',
          },
          {
            name: 'x-gsp-held-replicas',
            in: 'header',
            required: false,
            schema: { type: 'string', examples: ['gsp-proxy-0,gsp-proxy-1'] },
            description:
              'The proxy replica ids (as `hello` names them) the agent already holds a tunnel to, comma-separated, at most 64: ' +
              'a replica named there refuses the tunnel as a duplicate (already_exists) before registering it.',
          },
        ],
        requestBody: {
          required: true,
          description: 'Enveloped `AgentMessage`s (Connect streaming), for as long as the tunnel lives.',
          content: {
            'application/connect+proto': { schema: { type: 'string', format: 'binary' } },
            'application/connect+json': { schema: { type: 'string' } },
          },
        },
        responses: {
          '200': {
            description:
              'Enveloped `ProxyMessage`s, the first a `hello` (the cluster, this replica and how many replicas serve). A refusal ' +
              'ends the stream in its end-of-stream message, as the Connect protocol carries errors: `unauthenticated` (no or an ' +
              "unknown agent token), `permission_denied` (another cluster's token), `already_exists` (the agent already holds a " +
              'tunnel to this replica, see x-gsp-held-replicas), `unavailable` (CLI access is off for the cluster, or this ' +
              'replica is draining or shutting down).',
            content: {
              'application/connect+proto': { schema: { type: 'string', format: 'binary' } },
              'application/connect+json': { schema: { type: 'string' } },
            },
          },
          '405': problemResponse('Only POST opens a tunnel.'),
          '415': problemResponse(
            'The body is not a Connect stream (application/connect+proto or application/connect+json).',
          ),
          ...CLIENT_ERROR_RESPONSES,
        },
      },
    },
    ...documentOperation(),
  },
} as const;

/**
 * TUNNEL_PORT's handler: the RPC goes to `rpc` (Connect's adapter, which answers a wrong method or
 * media type with an empty 405 or 415, and anything else with an empty 404), the rest is answered here.
 */
export function tunnelPort(
  rpc: (req: Http2ServerRequest, res: Http2ServerResponse) => void,
): (req: Http2ServerRequest, res: Http2ServerResponse) => void {
  const document = JSON.stringify(TUNNEL_PORT_DOCUMENT);
  return (req, res) => {
    const path = req.url.split('?')[0];
    if (path === CONNECT_PATH) {
      if (req.method !== 'POST')
        return writeProblem(res, 405, `only POST ${CONNECT_PATH} opens a tunnel`, { allow: 'POST' });
      if (!contentTypeStreamRegExp.test(req.headers['content-type'] ?? '')) {
        return writeProblem(res, 415, 'send a Connect stream (application/connect+proto), as the tunnel agent does');
      }
      return rpc(req, res);
    }
    if (path === '/openapi.json' && req.method === 'GET') {
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(document),
      });
      return void res.end(document);
    }
    writeProblem(res, 404, `No route ${req.method} ${path}: this port serves tunnel agents (POST ${CONNECT_PATH})`);
  };
}
