import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { describeValidation } from '@gsp/service-kit';
import { DATABASE_UNAVAILABLE, isDatabaseUnavailable, RETRY_AFTER_SECONDS } from '../db/availability.js';
import { OfrepRequestError } from './evaluation.js';

/**
 * Errors as the OFREP specification answers them, not problem+json: a 400 with `errorCode` and
 * `errorDetails` (and the flag's `key` on a single evaluation), 401/403 without a body.
 */
export function answerOfrepError(
  error: FastifyError | OfrepRequestError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const params = request.params as { key?: string; '*'?: string } | undefined;
  const key = params?.key ?? params?.['*'];
  const failure = (errorCode: string, errorDetails: string) =>
    reply.code(400).send(key === undefined ? { errorCode, errorDetails } : { key, errorCode, errorDetails });
  if (error instanceof OfrepRequestError) return failure(error.errorCode, error.message);
  const status = error.statusCode ?? 500;
  // The spec gives these no body; the WWW-Authenticate header set by the auth hook stays.
  if (status === 401 || status === 403) return reply.code(status).send();
  // Too large is not malformed: a client that shrinks the context can succeed, so it hears 413.
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return reply.code(413).send({
      errorDetails:
        `the request body is larger than ${request.routeOptions.bodyLimit} bytes, ` + 'the most this service accepts',
    });
  if (error.code?.startsWith('FST_ERR_CTP_')) return failure('PARSE_ERROR', error.message);
  if (error.validation) {
    const fields = describeValidation(error.validation, error.validationContext);
    return failure('INVALID_CONTEXT', fields.length > 0 ? fields.map((f) => f.detail).join('; ') : error.message);
  }
  if (status < 500) return failure('GENERAL', error.message);
  if (isDatabaseUnavailable(error)) {
    // OFREP's general error shape; the status and Retry-After say it is worth retrying.
    request.log.warn({ err: { message: error.message } }, 'OFREP request failed: database unavailable');
    reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    return reply.code(503).send({ errorDetails: DATABASE_UNAVAILABLE });
  }
  request.log.error({ err: error }, 'OFREP request failed');
  return reply.code(500).send({
    errorDetails: `The server could not evaluate the request; quote request id ${request.id} when reporting it.`,
  });
}

/** A path under the OFREP prefix that names no route: OFREP's general error shape. */
export function answerOfrepNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.code(404).send({ errorDetails: `No route ${request.method} ${request.url.split('?')[0]}` });
}
