import { STATUS_CODES } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { describeValidation } from './validation.js';
import type { FieldError } from './validation.js';
import { Type } from 'typebox';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  requestId: string;
  /** On a 400 for bad input: each field that failed, with its JSON Pointer (RFC 9457 §3's extension member). */
  errors?: FieldError[];
}

/** The schema of `Problem` for OpenAPI documents (`$id` `Problem`: add it with `app.addSchema`). */
export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    requestId: Type.String(),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          in: Type.Union([Type.Literal('body'), Type.Literal('path'), Type.Literal('query'), Type.Literal('header')]),
          pointer: Type.String({
            description: 'RFC 6901 JSON Pointer to the field in that part, as a URI fragment: `#/role`',
          }),
          detail: Type.String({ description: 'what is wrong, naming what is allowed' }),
        }),
        { description: 'on a 400 for bad input: each field that failed' },
      ),
    ),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details' },
);

/** `Retry-After` of a 503 unless the service says otherwise: long enough for a timeout to pass. */
const DEFAULT_RETRY_AFTER_SECONDS = 2;

function slug(status: number): string {
  return (STATUS_CODES[status] ?? 'error').toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

function problemFields(status: number, detail: string): Omit<Problem, 'requestId'> {
  return { type: `urn:gsp:problem:${slug(status)}`, title: STATUS_CODES[status] ?? 'Error', status, detail };
}

/** A problem without a request (no Fastify reply: bytes that are not HTTP, a port served by hand), as JSON. */
export function problemBody(status: number, detail: string): string {
  return JSON.stringify(problemFields(status, detail));
}

/** The problem `sendProblem` sends, for a reply that adds extension members of its own. */
export function problemOf(request: FastifyRequest, status: number, detail: string): Problem {
  return { ...problemFields(status, detail), requestId: request.id };
}

/** Writes a problem on a plain Node response (HTTP/1 or HTTP/2), where no Fastify reply exists. */
export function writeProblem(
  res: { writeHead(status: number, headers: Record<string, string | number>): unknown; end(body: string): unknown },
  status: number,
  detail: string,
  headers: Record<string, string> = {},
): void {
  const body = problemBody(status, detail);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  detail: string,
  errors?: readonly FieldError[],
): FastifyReply {
  const problem = problemOf(request, status, detail);
  if (errors !== undefined && errors.length > 0) problem.errors = [...errors];
  // A 503 is temporary by definition: say when to come back.
  if (status === 503 && !reply.hasHeader('retry-after')) {
    reply.header('retry-after', String(DEFAULT_RETRY_AFTER_SECONDS));
  }
  return reply.code(status).type('application/problem+json').send(problem);
}

/**
 * A request refused by a check of the service's own rather than by its schema (one that must run
 * before the schema does): answered like a schema failure, 400 with `errors`.
 */
export class InvalidRequestError extends Error {
  readonly statusCode = 400;
  readonly code = 'ERR_INVALID_REQUEST';
  readonly errors: readonly FieldError[];

  constructor(errors: readonly FieldError[]) {
    super(errors.map((e) => e.detail).join('; '));
    this.name = 'InvalidRequestError';
    this.errors = errors;
  }
}

export interface ProblemsOptions {
  /** The code prefix of the service's own errors (`API_`, `CP_`): their 5xx messages are written for clients. */
  ownCodePrefix: string;
  /**
   * Recognises an error that means a dependency is unavailable or too slow (a refused connection,
   * a timeout) and returns what to tell the client: answered 503 with `Retry-After` instead of 500.
   */
  unavailable?: ((error: Error) => string | undefined) | undefined;
  /** `Retry-After` of every 503, in seconds. Default 2. */
  retryAfterSeconds?: number | undefined;
}

const SCHEMA_PARTS = new Set(['body', 'params', 'querystring', 'headers']);

/** Renders every error as RFC 9457 problem+json; 5xx details stay in the log, never in the body. */
export const problems = fp<ProblemsOptions>(
  async (app, opts) => {
    const retryAfter = String(opts.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS);
    if (!/^\d+$/.test(retryAfter)) {
      throw new Error(`problems: retryAfterSeconds must be a whole number of seconds, got ${retryAfter}`);
    }

    app.setErrorHandler((error: FastifyError, request, reply) => {
      if (error.validation) {
        const part = error.validationContext ?? 'body';
        const route = request.routeOptions.schema as Record<string, unknown> | undefined;
        const errors = describeValidation(error.validation, part, SCHEMA_PARTS.has(part) ? route?.[part] : undefined);
        const detail = errors.length > 0 ? errors.map((e) => e.detail).join('; ') : error.message;
        return sendProblem(request, reply, 400, detail, errors);
      }
      if (error instanceof InvalidRequestError) return sendProblem(request, reply, 400, error.message, error.errors);
      // Kubernetes clients put the HTTP status in `code`; only a string can be one of our codes.
      const code = typeof error.code === 'string' ? error.code : '';
      let status = error.statusCode ?? 500;
      if (status < 400 || status > 599) status = 500;
      if (status >= 500) {
        const unavailable = opts.unavailable?.(error);
        if (unavailable !== undefined) {
          request.log.warn({ err: { message: error.message, code: error.code } }, 'dependency unavailable');
          if (!reply.hasHeader('retry-after')) reply.header('retry-after', retryAfter);
          return sendProblem(request, reply, 503, unavailable);
        }
        const own = code.startsWith(opts.ownCodePrefix);
        // Our own 503 is a state we detected and named (a cache not yet listed, a cluster away): a warning
        // without a stack, or every probe and retry while it lasts would log an error with one.
        if (own && status === 503) request.log.warn({ err: { message: error.message, code } }, 'service unavailable');
        else request.log.error({ err: error }, 'request failed');
        // A 503 is temporary by definition: say when to come back, unless the route already did.
        if (status === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', retryAfter);
        // Our own declared errors carry messages written for clients; anything else may leak internals.
        if (!own) {
          return sendProblem(
            request,
            reply,
            status,
            `The server could not complete the request; quote request id ${request.id} when reporting it.`,
          );
        }
      }
      if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        // Fastify's own text names no number; the client needs the rule to send something that fits.
        const limit = request.routeOptions.bodyLimit;
        return sendProblem(request, reply, 413, `the body is larger than ${limit} bytes, the most this route accepts`);
      }
      if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
        return sendProblem(
          request,
          reply,
          415,
          `send the body as application/json (got ${request.headers['content-type'] ?? 'no content type'})`,
        );
      }
      return sendProblem(request, reply, status, error.message);
    });
    app.setNotFoundHandler((request, reply) =>
      sendProblem(request, reply, 404, `No route ${request.method} ${request.url.split('?')[0]}`),
    );
  },
  { name: 'problems' },
);
