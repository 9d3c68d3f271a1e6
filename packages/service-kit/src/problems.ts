import { STATUS_CODES } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  requestId: string;
}

function slug(status: number): string {
  return (STATUS_CODES[status] ?? 'error').toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, status: number, detail: string): FastifyReply {
  const problem: Problem = { type: `urn:gsp:problem:${slug(status)}`, title: STATUS_CODES[status] ?? 'Error', status, detail, requestId: request.id };
  return reply.code(status).type('application/problem+json').send(problem);
}

export interface ProblemsOptions {
  /** The code prefix of the service's own errors (`API_`, `CP_`): their 5xx messages are written for clients. */
  ownCodePrefix: string;
}

/** Renders every error as RFC 9457 problem+json; 5xx details stay in the log, never in the body. */
export const problems = fp<ProblemsOptions>(
  async (app, opts) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      let status = error.validation ? 400 : (error.statusCode ?? 500);
      if (status < 400 || status > 599) status = 500;
      if (status >= 500) {
        request.log.error({ err: error }, 'request failed');
        // Our own declared errors carry messages written for clients; anything else may leak internals.
        if (!error.code?.startsWith(opts.ownCodePrefix)) {
          return sendProblem(request, reply, status, `The server could not complete the request; quote request id ${request.id} when reporting it.`);
        }
      }
      if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
        return sendProblem(request, reply, 415, `send the body as application/json (got ${request.headers['content-type'] ?? 'no content type'})`);
      }
      return sendProblem(request, reply, status, error.message);
    });
    app.setNotFoundHandler((request, reply) => sendProblem(request, reply, 404, `No route ${request.method} ${request.url.split('?')[0]}`));
  },
  { name: 'problems' },
);
