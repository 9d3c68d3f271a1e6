import { LogController } from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Fastify's own log lines about requests, but for one: a streamed response (a live feed, a
 * followed log) whose client went away. Fastify logs that "stream closed prematurely" at info,
 * yet a client closing is how such a response normally ends (a browser leaving the page, curl's
 * Ctrl-C), so it is a debug line here, beside the request logs. A stream that fails otherwise is
 * still a warning.
 */
export class ServiceLogController extends LogController {
  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE')
      return super.streamError(error, request, reply);
    if (!this.isLogDisabled(request)) reply.log.debug({ res: reply }, 'stream closed by the client');
  }
}
