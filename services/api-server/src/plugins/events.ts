import fp from 'fastify-plugin';
import { createEventBus } from '@gsp/events';
import type { EventBus } from '@gsp/events';

declare module 'fastify' {
  interface FastifyInstance {
    /** The process's one event bus: the outbox relay publishes on it, the flags client and the event feed listen. */
    events: EventBus;
  }
}

export interface EventsPluginOptions {
  redisUrl: string | undefined;
  redisKeyPrefix: string;
}

/** How long start waits for Redis before going on without live invalidation. */
const REDIS_START_WAIT_MS = 2000;

/**
 * Builds the event bus (Redis, or in-process without it) once for the whole app and closes it
 * after everything that uses it (this plugin's `onClose` runs after theirs).
 */
export default fp<EventsPluginOptions>(
  async (app, opts) => {
    const bus = createEventBus({
      redisUrl: opts.redisUrl,
      prefix: opts.redisKeyPrefix,
      connectionName: `${opts.redisKeyPrefix}api-server`,
      log: app.log,
    });
    app.decorate('events', bus);
    app.addHook('onClose', () => bus.close());
    // Start with live invalidation when Redis answers soon. Otherwise start anyway: caches expire
    // within the TTL, the outbox keeps every event until the relay can publish it, and the
    // subscription resyncs when Redis comes back. An outage must not keep the API down.
    const live = await Promise.race([
      bus.ready().then(() => true),
      new Promise<false>((resolve) => setTimeout(resolve, REDIS_START_WAIT_MS, false).unref()),
    ]);
    if (!live)
      app.log.warn(
        'redis not reachable at start: flag changes reach other processes within SERVICE_CACHE_FLAGS_TTL ' +
          'until it is; events wait in the outbox',
      );
  },
  { name: 'events' },
);
