import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { problemBody, sendProblem } from './problems.js';

/**
 * Fastify answers a few errors itself, before any route, hook or error handler, with a JSON body
 * of its own shape: a malformed percent-encoding (FST_ERR_BAD_URL), a path parameter over
 * `maxParamLength` (FST_ERR_MAX_PARAM_LENGTH) and bytes Node cannot parse as HTTP (`clientError`).
 * These two options give them the one error shape of every service; pass both to `Fastify()`.
 */

/**
 * Fastify's `maxParamLength` for a service whose longest path identifier is `longest` characters
 * (Fastify's default, 100, refused a 105-character OIDC subject with 414). The limit applies to
 * the raw, percent-encoded segment: one character is up to three UTF-8 bytes of three characters
 * each. Anything longer than the identifier is refused by the route's schema, naming the field.
 */
export const maxParamLengthFor = (longest: number): number => longest * 9;

/**
 * `frameworkErrors`: answers problem+json. Fastify calls it outside the app's error handler (a
 * `reply.send(error)` here would get Fastify's default body), so it renders the problem itself.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
  const detail =
    error.code === 'FST_ERR_BAD_URL'
      ? 'the request path holds a malformed percent-encoding'
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? 'a path segment is longer than this service accepts'
        : 'the request could not be routed';
  sendProblem(request, reply, status, detail);
}

/**
 * `clientErrorHandler`: bytes that are not HTTP get a problem+json answer (no request exists, so no request id),
 * then the socket closes.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const detail =
    status === 408
      ? 'the request was not received in time'
      : status === 431
        ? 'the request headers are too large'
        : 'the request is not valid HTTP (a character not allowed in a path or header, or a malformed line)';
  const title = STATUS_CODES[status] ?? 'Bad Request';
  const body = problemBody(status, detail);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
