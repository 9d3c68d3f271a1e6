import createError from '@fastify/error';

// Every error this service answers with is declared here once; one handler renders them.
export const Unauthorized = createError('API_UNAUTHORIZED', '%s', 401);
export const Forbidden = createError('API_FORBIDDEN', '%s', 403);
export const NotFound = createError('API_NOT_FOUND', '%s', 404);
export const Conflict = createError('API_CONFLICT', '%s', 409);
export const BadRequest = createError('API_BAD_REQUEST', '%s', 400);
export const Gone = createError('API_GONE', '%s', 410);
export const ServiceUnavailable = createError('API_UNAVAILABLE', '%s', 503);
export const NotAcceptable = createError('API_NOT_ACCEPTABLE', '%s', 406);
export const TooManyRequests = createError('API_TOO_MANY_REQUESTS', '%s', 429);
