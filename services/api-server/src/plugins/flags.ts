import fp from 'fastify-plugin';
import { createFlagsClient, processLocalBus, RedisEventBus } from '@gsp/flags-client';
import type { EventBus, FlagsClient } from '@gsp/flags-client';
import type { FlagsConfig } from '../config.js';
import { FlagService } from '../flags/service.js';
import { OutboxRelay } from '../outbox/relay.js';
import { ExpiryScheduler } from '../flags/expiry.js';
import { FLAG_UPDATED_EVENT, isFlagEvent } from '@gsp/platform-contract';

declare module 'fastify' {
  interface FastifyInstance {
    flags: FlagService;
    flagsClient: FlagsClient;
  }
}

export interface FlagsPluginOptions extends FlagsConfig {
  platformId: string;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  outboxPollIntervalMs: number;
  outboxRelayEnabled: boolean;
}

/** How long start waits for Redis before going on without live invalidation. */
const REDIS_START_WAIT_MS = 2000;

/**
 * The process's event transport (Redis, or in-process without it), the flag read path (a cached
 * `@gsp/flags-client` listening on it), the write path (FlagService) and the outbox relay that
 * publishes committed writes on it to every process.
 */
export default fp<FlagsPluginOptions>(
  async (app, opts) => {
    const bus: EventBus = opts.redisUrl
      ? new RedisEventBus({
          url: opts.redisUrl,
          prefix: opts.redisKeyPrefix,
          connectionName: `${opts.redisKeyPrefix}api-server`,
          onError: (err) =>
            app.log.warn(
              { err: { message: err.message } },
              'flag invalidation channel error; caches expire by TTL meanwhile',
            ),
        })
      : processLocalBus();
    const client = createFlagsClient({
      pool: app.pg,
      bus,
      ttlMs: opts.ttlMs,
      pins: opts.pins,
      logger: app.log,
      registry: app.metrics.registry,
      ofrep: opts.ofrep,
    });
    // Start with live invalidation when Redis answers soon. Otherwise start anyway: caches expire
    // within the TTL, the outbox keeps every event until the relay can publish it, and the
    // subscription resyncs when Redis comes back. An outage must not keep the API down.
    const live = await Promise.race([
      client.ready().then(() => true),
      new Promise<false>((resolve) => setTimeout(resolve, REDIS_START_WAIT_MS, false).unref()),
    ]);
    if (!live)
      app.log.warn(
        'redis not reachable at start: flag changes reach other processes within SERVICE_CACHE_FLAGS_TTL until it is; events wait in the outbox',
      );
    const relay = new OutboxRelay({ pool: app.pg, bus, log: app.log, pollIntervalMs: opts.outboxPollIntervalMs });
    const service = new FlagService(app.pg, client, opts.pins, opts.platformId);
    app.decorate('flagsClient', client);
    app.decorate('flags', service);
    if (opts.outboxRelayEnabled) await relay.start();
    // Values with an expiry are cleared when it passes, by one replica; the first run clears what
    // expired while none ran. A write with an expiry, on any replica, wakes it.
    const expiry = new ExpiryScheduler(service, app.log);
    const unsubscribe = bus.subscribe(FLAG_UPDATED_EVENT, {
      event: (e) => {
        if (isFlagEvent(e) && e.expiresAt != null) void expiry.poke();
      },
    });
    app.addHook('onReady', () => expiry.start());
    app.addHook('onClose', async () => {
      unsubscribe();
      await expiry.stop();
      await relay.stop();
      await client.close();
      // The process-local bus outlives this app; a Redis bus is this app's own.
      if (bus instanceof RedisEventBus) await bus.close();
    });
  },
  { name: 'flags', dependencies: ['db', 'metrics'] },
);
