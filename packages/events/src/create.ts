import type { Logger } from '@gsp/service-kit';
import type { EventBus } from './bus.js';
import { processLocalBus } from './local.js';
import { RedisEventBus } from './redis.js';

export interface EventBusOptions {
  /** `REDIS_URL`; without it, events stay inside this process (`processLocalBus`). */
  redisUrl?: string | undefined;
  /** `REDIS_KEY_PREFIX`: channel names start with it, so deployments sharing a Redis never cross. */
  prefix?: string | undefined;
  /** Redis CLIENT SETNAME base, to tell processes apart in CLIENT LIST (`<prefix><service>`). */
  connectionName?: string | undefined;
  /** Told when the Redis connection fails; caches expire by their TTL meanwhile. */
  log: Pick<Logger, 'warn'>;
}

/**
 * The process's one event bus: Redis pub/sub when `redisUrl` is set, else the in-process channel.
 * Build it once at start, hand it to the outbox relay, the flags client and every cache that
 * listens, and close it last.
 */
export function createEventBus(options: EventBusOptions): EventBus {
  const { log } = options;
  if (!options.redisUrl) return processLocalBus();
  return new RedisEventBus({
    url: options.redisUrl,
    prefix: options.prefix,
    connectionName: options.connectionName,
    onError: (err) =>
      log.warn({ err: { message: err.message } }, 'flag invalidation channel error; caches expire by TTL meanwhile'),
  });
}
