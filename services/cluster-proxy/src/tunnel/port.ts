import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { TUNNEL_CONTENT_TYPE, TUNNEL_RPC_PATH } from '@gsp/tunnel-proto';
import { CLIENT_ERROR_RESPONSES, documentOperation, PROBLEM, problemResponse, writeProblem } from '@gsp/service-kit';

/** The one RPC of TUNNEL_PORT. */
export const CONNECT_PATH = TUNNEL_RPC_PATH;

/** `/openapi.json` of TUNNEL_PORT, the agents' side (HTTP/2 only). */
export const TUNNEL_PORT_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'GSP cluster proxy (tunnel port)',
    version: '1.0.0',
    description:
      'Tunnel agents dial in here over HTTP/2 and open one Connect-protocol bidirectional stream, which then carries ' +
      'the kubectl requests for their cluster (gsp.tunnel.v1, see packages/tunnel-proto/proto). ' +
      'Errors outside the RPC are application/problem+json.',
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
              'The proxy replica ids (as `hello` names them) the agent already holds a tunnel to, ' +
              'comma-separated, at most 64: a replica named there refuses the tunnel ' +
              'as a duplicate (already_exists) before registering it.',
          },
        ],
        requestBody: {
          required: true,
          description: 'Enveloped `AgentMessage`s (Connect streaming), for as long as the tunnel lives.',
          content: {
            'application/connect+proto': { schema: { type: 'string', format: 'binary' } },
          },
        },
        responses: {
          '200': {
            description:
              'Enveloped `ProxyMessage`s, the first a `hello` ' +
              '(the cluster, this replica and how many replicas serve). A refusal ends the stream ' +
              'in its end-of-stream message, as the Connect protocol carries errors: ' +
              "`unauthenticated` (no or an unknown agent token), `permission_denied` (another cluster's token), " +
              '`already_exists` (the agent already holds a tunnel to this replica, see x-gsp-held-replicas), ' +
              '`unavailable` (CLI access is off for the cluster, or this replica is draining or shutting down).',
            content: {
              'application/connect+proto': { schema: { type: 'string', format: 'binary' } },
            },
          },
          '405': problemResponse('Only POST opens a tunnel.'),
          '415': problemResponse(
            'The body is not a Connect stream of protobuf messages (application/connect+proto), ' +
              'the one the agent sends.',
          ),
          ...CLIENT_ERROR_RESPONSES,
        },
      },
    },
    ...documentOperation(),
  },
} as const;

/** Answers `stream` with a problem+json (writeProblem's shape on a bare HTTP/2 stream), dropping any body it sends. */
function problem(
  stream: ServerHttp2Stream,
  status: number,
  detail: string,
  headers: Record<string, string> = {},
): void {
  stream.resume();
  if (stream.destroyed || stream.headersSent) return;
  writeProblem(
    {
      writeHead: (code, head) => stream.respond({ ...head, ':status': code }),
      end: (body) => stream.end(body),
    },
    status,
    detail,
    headers,
  );
}

/** The tunnel's media type, as Connect compares it (case aside). */
const TUNNEL_CONTENT_TYPE_RE = /^application\/connect\+proto$/i;

/**
 * TUNNEL_PORT's handler, for each HTTP/2 stream: the RPC goes to `rpc` (POST with the tunnel's
 * media type); everything else is answered here, as problem+json.
 */
export function tunnelPort(
  rpc: (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void,
): (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void {
  const document = JSON.stringify(TUNNEL_PORT_DOCUMENT);
  return (stream, headers) => {
    stream.on('error', () => undefined);
    const method = headers[':method'] ?? '';
    const path = (headers[':path'] ?? '').split('?')[0] ?? '';
    if (path === CONNECT_PATH) {
      if (method !== 'POST') return problem(stream, 405, `only POST ${CONNECT_PATH} opens a tunnel`, { allow: 'POST' });
      if (!TUNNEL_CONTENT_TYPE_RE.test(headers['content-type'] ?? '')) {
        return problem(stream, 415, `send a Connect stream (${TUNNEL_CONTENT_TYPE}), as the tunnel agent does`);
      }
      return rpc(stream, headers);
    }
    if (path === '/openapi.json' && method === 'GET') {
      stream.resume();
      stream.respond({
        ':status': 200,
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(document),
      });
      return void stream.end(document);
    }
    problem(stream, 404, `No route ${method} ${path}: this port serves tunnel agents (POST ${CONNECT_PATH})`);
  };
}
