import type { FastifyRequest } from 'fastify';
import type { RateLimitPluginOptions } from '@fastify/rate-limit';
import type { ControlPlaneConfig } from '../config/index.js';
import { TooManyRequests } from '../errors.js';
import type { SharedRedis } from '../redis/shared.js';

/**
 * Whose request budget a request spends: an API key's own (by its hash, so a key created again
 * under a revoked key's name starts afresh), else the user's, else the address's.
 */
function budgetKey(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal === null) return `ip:${request.ip}`;
  if (principal.apiKey !== undefined) return `apikey:${principal.apiKey.sha256}`;
  return `${principal.method}:${principal.userId}`;
}

/** The request budget in Redis, shared by the replicas; while the breaker is open, not asked of Redis at all. */
const sharedBudget = ({ client, health, keyPrefix }: SharedRedis) => ({
  redis: client,
  nameSpace: `${keyPrefix}rl:`,
  skipOnError: true,
  allowList: () => !health.usable(),
});

/** `@fastify/rate-limit`'s options: `RATE_LIMIT_MAX` requests per `RATE_LIMIT_WINDOW` and caller. */
export function requestBudget(
  limits: ControlPlaneConfig['rateLimit'],
  redis: SharedRedis | undefined,
): RateLimitPluginOptions {
  return {
    global: true,
    max: limits.max,
    timeWindow: limits.windowMs,
    ...(redis === undefined ? {} : sharedBudget(redis)),
    keyGenerator: budgetKey,
    errorResponseBuilder: (_request, context) =>
      new TooManyRequests(`rate limit of ${context.max} requests per ${context.after} exceeded`),
  };
}
