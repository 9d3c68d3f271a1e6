import { Redis } from 'ioredis';

/** Longest wait for one Redis command; Redis answers in well under a millisecond when healthy. */
export const REDIS_COMMAND_TIMEOUT_MS = 250;
/** How long the breaker leaves Redis alone after a command failed or stalled. */
const BREAKER_PAUSE_MS = 5000;

/** Whether Redis may be asked now: connected, and no command has failed or stalled lately. */
export interface RedisHealth {
  usable(): boolean;
  /** A command failed or timed out: use the fallbacks for a while before trying Redis again. */
  failed(err: Error): void;
}

/** The Redis the replicas share their counters, locks and console tickets through. */
export interface SharedRedis {
  client: Redis;
  /** Whether to ask Redis now (connected, no recent failure); tell it of each failure. */
  health: RedisHealth;
  /** REDIS_KEY_PREFIX: every key of this control plane starts with it. */
  keyPrefix: string;
}

/**
 * A circuit breaker over one client: after a failure, Redis is left alone for `pauseMs`. A command
 * that timed out also drops the connection: whatever became of its bytes, the replies that follow
 * on that connection can no longer be matched to their commands, so a fresh one is opened.
 */
function redisHealth(redis: Redis, pauseMs: number, onOutage: (err: Error) => void): RedisHealth {
  let pausedUntil = 0;
  return {
    usable: () => redis.status === 'ready' && Date.now() >= pausedUntil,
    failed(err) {
      if (Date.now() >= pausedUntil) onOutage(err);
      pausedUntil = Date.now() + pauseMs;
      if (/timed out/i.test(err.message) && redis.status === 'ready') redis.disconnect(true);
    },
  };
}

/**
 * A client of the Redis at `url` and its breaker. Commands fail at once while disconnected (no
 * offline queue) and give up after REDIS_COMMAND_TIMEOUT_MS on a silent link; `onOutage` hears
 * of the failure that opens the breaker.
 */
export function openSharedRedis(url: string, keyPrefix: string, onOutage: (err: Error) => void): SharedRedis {
  const client = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: false,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    socketTimeout: 10_000,
  });
  return { client, health: redisHealth(client, BREAKER_PAUSE_MS, onOutage), keyPrefix };
}
