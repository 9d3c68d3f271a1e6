/**
 * Pieces of OpenAPI documents written by hand, for ports not built from Fastify routes (the
 * proxy's kubectl and tunnel ports, the agent's probes): one wording of a problem and of the
 * errors every port answers before any route runs.
 */
import type { RouteOptions } from 'fastify';

/** RFC 9457 problem details as `problems`, `clientErrorHandler` and `sendProblem` write them. */
export const PROBLEM = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string', examples: ['urn:gsp:problem:not-found'] },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    requestId: { type: 'string' },
  },
} as const;

/** A problem+json response; `schema` defaults to the document's `Problem` component. */
export const problemResponse = (description: string, schema: object = { $ref: '#/components/schemas/Problem' }) => ({
  description,
  content: { 'application/problem+json': { schema } },
});

export const jsonResponse = (schema: object, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/**
 * What a port's client may get wrong before any route runs: a path or bytes that are not HTTP, a request sent too
 * slowly.
 */
export const CLIENT_ERROR_RESPONSES = {
  '400': problemResponse('A path with a malformed percent-encoding, or a request that is not valid HTTP.'),
  '408': problemResponse('The request was not received within HTTP_HEADERS_TIMEOUT or HTTP_REQUEST_TIMEOUT.'),
} as const;

/** `/healthz`'s answer on every port that has one. */
export const HEALTH = { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } } as const;

/** `GET /healthz` on a probe port: alive whenever the process answers. */
export const HEALTH_ROUTE = {
  method: 'GET',
  url: '/healthz',
  schema: { response: { 200: HEALTH } },
  handler: async () => ({ status: 'ok' as const }),
} satisfies RouteOptions;

/** A GET every client may call without credentials (probes, the document itself). */
const operation = <R extends object>(operationId: string, summary: string, responses: R) => ({
  get: {
    operationId,
    tags: ['operations'],
    summary,
    security: [],
    responses: { ...responses, ...CLIENT_ERROR_RESPONSES },
  },
});

/** `/openapi.json`: the port's own document. */
export const documentOperation = () => ({
  '/openapi.json': operation('openapi', 'This document', {
    '200': jsonResponse({ type: 'object' }, 'The OpenAPI document of this port.'),
  }),
});

export interface ProbeOperationsOptions {
  /** `/healthz`'s summary; default "The process runs". */
  healthz?: string;
  /** `/readyz`: what being ready means on this port, and its answers (client errors are added). */
  readyz: { summary: string; responses: Record<string, object> };
}

/** `/healthz`, `/readyz` and `/openapi.json` as a port serving probes describes them. */
export const probeOperations = <O extends ProbeOperationsOptions>(options: O) => ({
  '/healthz': operation('healthz', options.healthz ?? 'The process runs', {
    '200': jsonResponse(HEALTH, 'Alive.'),
  }),
  '/readyz': operation('readyz', options.readyz.summary, options.readyz.responses as O['readyz']['responses']),
  ...documentOperation(),
});
