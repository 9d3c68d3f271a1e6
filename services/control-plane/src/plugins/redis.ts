import fp from 'fastify-plugin';
import { waitUntil } from '@gsp/service-kit';
import { openSharedRedis } from '../redis/shared.js';
import type { SharedRedis } from '../redis/shared.js';

/** How long the start waits for Redis before going on without it (degraded, not down). */
const START_WAIT_MS = 2000;

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
 * 500, never a hung request (src/redis/shared.ts: bounded commands and a breaker).
 */
export default fp<RedisPluginOptions>(
  async (app, opts) => {
    if (opts.url === undefined) {
      app.decorate('redis', undefined);
      return;
    }
    const shared = openSharedRedis(opts.url, opts.keyPrefix, (err) =>
      app.log.warn(
        { err: { message: err.message } },
        'redis failed or stalled: failed sign-ins are counted per replica ' +
          'and the request budget is not enforced until it answers again',
      ),
    );
    const { client } = shared;
    let down = false;
    client.on('error', (err) => {
      if (down) return;
      down = true;
      app.log.warn(
        { err: { message: err.message } },
        'redis unreachable: failed sign-ins are counted per replica ' +
          'and the request budget is not enforced until it is back',
      );
    });
    client.on('ready', () => {
      if (down) app.log.info('redis reachable again: counters are shared by the replicas');
      down = false;
    });
    app.addHook('onClose', async () => {
      await client.quit().catch(() => client.disconnect());
    });
    app.decorate('redis', shared);
    // Start with shared counters when Redis answers soon; otherwise start anyway, degraded.
    await waitUntil(() => client.status === 'ready', {
      timeoutMs: START_WAIT_MS,
      intervalMs: 10,
      what: 'redis',
    }).catch(() => undefined);
  },
  { name: 'redis' },
);
