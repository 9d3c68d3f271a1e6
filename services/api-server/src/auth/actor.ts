import type { FastifyRequest } from 'fastify';
import { Unauthorized } from '../errors.js';

/** The authenticated subject of a request on a non-public route. */
export function actorOf(request: FastifyRequest): string {
  if (!request.verifiedToken) throw new Unauthorized('a bearer token is required');
  return request.verifiedToken.subject;
}
