import createError from '@fastify/error';

// Every error this service answers with is declared here once; one handler renders them.
export const Unauthorized = createError('CP_UNAUTHORIZED', '%s', 401);
export const Forbidden = createError('CP_FORBIDDEN', '%s', 403);
export const NotFound = createError('CP_NOT_FOUND', '%s', 404);
export const Conflict = createError('CP_CONFLICT', '%s', 409);
export const BadRequest = createError('CP_BAD_REQUEST', '%s', 400);
export const Unprocessable = createError('CP_UNPROCESSABLE', '%s', 422);
export const TooManyRequests = createError('CP_TOO_MANY_REQUESTS', '%s', 429);
export const NotImplemented = createError('CP_NOT_IMPLEMENTED', '%s', 501);
/** A command run in a game server did not finish within its timeout. */
export const ActionTimeout = createError('CP_ACTION_TIMEOUT', '%s', 504);
export const ServiceUnavailable = createError('CP_UNAVAILABLE', '%s', 503);
/** The Kubernetes API did not answer in time, could not be reached, or failed; the request may be retried. */
export const ClusterUnavailable = createError('CP_CLUSTER_UNAVAILABLE', '%s', 503);

/** An error that says when to try again: rendered as a `Retry-After` header (seconds). */
export interface Retryable {
  retryAfter?: number;
}

export function withRetryAfter<E extends Error>(error: E, seconds: number): E & Retryable {
  return Object.assign(error, { retryAfter: Math.max(1, Math.ceil(seconds)) });
}
