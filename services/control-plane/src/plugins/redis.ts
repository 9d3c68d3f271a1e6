import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import { waitUntil } from '@gsp/service-kit';

/** Longest wait for one Redis command; Redis answers in well under a millisecond when healthy. */
export const REDIS_COMMAND_TIMEOUT_MS = 250;
/** How long the start waits for Redis before going on without it (degraded, not down). */
const START_WAIT_MS = 2000;
/** How long the breaker leaves Redis alone after a command failed or stalled. */
const BREAKER_PAUSE_MS = 5000;

/** Whether Redis may be asked now: connected, and no command has failed or stalled lately. */
export interface RedisHealth {
  usable(): boolean;
  /** A command failed or timed out: use the fallbacks for a while before trying Redis again. */
  failed(err: Error): void;
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

/** The Redis the replicas share their counters, locks and console tickets through. */
export interface SharedRedis {
  client: Redis;
  /** Whether to ask Redis now (connected, no recent failure); tell it of each failure. */
  health: RedisHealth;
  /** REDIS_KEY_PREFIX: every key of this control plane starts with it. */
  keyPrefix: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Undefined without REDIS_URL: counters, locks and tickets are then this replica's own. */
    redis: SharedRedis | undefined;
  }
}

export interface RedisPluginOptions {
  /** REDIS_URL; unset, nothing is shared. */
  url: string | undefined;
  keyPrefix: string;
}

/**
 * The shared Redis, when there is one. While it is unreachable or stalls, its users fall back
 * to this replica (failed sign-ins, locks, tickets) or skip it (the request budget): never a
 * 500, never a hung request. Commands fail at once while disconnected (no offline queue) and
 * give up after REDIS_COMMAND_TIMEOUT_MS on a silent link; then the breaker leaves Redis alone
 * for a few seconds.
 */
export default fp<RedisPluginOptions>(
  async (app, opts) => {
    if (opts.url === undefined) {
      app.decorate('redis', undefined);
      return;
    }
    const client = new Redis(opts.url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: false,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      socketTimeout: 10_000,
    });
    const health = redisHealth(client, BREAKER_PAUSE_MS, (err) =>
      app.log.warn(
        { err: { message: err.message } },
        'redis failed or stalled: failed sign-ins are counted per replica and the request budget is not enforced until it answers again',
      ),
    );
    let down = false;
    client.on('error', (err) => {
      if (down) return;
      down = true;
      app.log.warn(
        { err: { message: err.message } },
        'redis unreachable: failed sign-ins are counted per replica and the request budget is not enforced until it is back',
      );
    });
    client.on('ready', () => {
      if (down) app.log.info('redis reachable again: counters are shared by the replicas');
      down = false;
    });
    app.addHook('onClose', async () => {
      await client.quit().catch(() => client.disconnect());
    });
    app.decorate('redis', { client, health, keyPrefix: opts.keyPrefix });
    // Start with shared counters when Redis answers soon; otherwise start anyway, degraded.
    await waitUntil(() => client.status === 'ready', {
      timeoutMs: START_WAIT_MS,
      intervalMs: 10,
      what: 'redis',
    }).catch(() => undefined);
  },
  { name: 'redis' },
);
