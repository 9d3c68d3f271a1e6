/**
 * Pieces of OpenAPI documents written by hand, for ports not built from Fastify routes (the
 * proxy's kubectl and tunnel ports, the agent's probes): one wording of a problem and of the
 * errors every port answers before any route runs.
 */

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

/** What a port's client may get wrong before any route runs: a path or bytes that are not HTTP, a request sent too slowly. */
export const CLIENT_ERROR_RESPONSES = {
  '400': problemResponse('A path with a malformed percent-encoding, or a request that is not valid HTTP.'),
  '408': problemResponse('The request was not received within HTTP_HEADERS_TIMEOUT or HTTP_REQUEST_TIMEOUT.'),
} as const;
