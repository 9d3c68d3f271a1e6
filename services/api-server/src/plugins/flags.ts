import fp from 'fastify-plugin';
import { createFlagsClient } from '@gsp/flags-client';
import type { FlagsClient } from '@gsp/flags-client';
import { FlagService } from '../flags/service.js';
import { OutboxRelay } from '../outbox/relay.js';

declare module 'fastify' {
  interface FastifyInstance {
    flags: FlagService;
    flagsClient: FlagsClient;
  }
}

export interface FlagsPluginOptions {
  platformId: string;
  envPins: ReadonlyMap<string, boolean>;
  flagEnv: Readonly<Record<string, string>>;
  ttlMs: number;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  outboxPollIntervalMs: number;
  outboxRelayEnabled: boolean;
  ofrep: { url: string; headers: Record<string, string> } | undefined;
}

/**
 * The flag read path (a cached `@gsp/flags-client`), the write path (FlagService) and the
 * outbox relay that tells every other process's client about committed writes.
 */
export default fp<FlagsPluginOptions>(
  async (app, opts) => {
    const client = createFlagsClient({
      pool: app.pg,
      redisUrl: opts.redisUrl,
      redisPrefix: opts.redisKeyPrefix,
      redisConnectionName: `${opts.redisKeyPrefix}api-server`,
      ttlMs: opts.ttlMs,
      env: opts.flagEnv,
      logger: app.log,
      registry: app.metrics,
      ofrep: opts.ofrep,
    });
    // Start with live invalidation when Redis answers soon. Otherwise start anyway: caches expire
    // within the TTL, the outbox keeps every event until the relay can publish it, and the
    // subscription resyncs when Redis comes back. An outage must not keep the API down.
    const live = await Promise.race([
      client.ready().then(() => true),
      new Promise<false>((resolve) => setTimeout(resolve, 2000, false).unref()),
    ]);
    if (!live)
      app.log.warn(
        'redis not reachable at start: flag changes reach other processes within SERVICE_CACHE_FLAGS_TTL until it is; events wait in the outbox',
      );
    const relay = new OutboxRelay({
      pool: app.pg,
      bus: client.eventBus,
      log: app.log,
      pollIntervalMs: opts.outboxPollIntervalMs,
    });
    app.decorate('flagsClient', client);
    app.decorate('flags', new FlagService(app.pg, client, opts.envPins, opts.platformId));
    if (opts.outboxRelayEnabled) await relay.start();
    app.addHook('onClose', async () => {
      await relay.stop();
      await client.close();
    });
  },
  { name: 'flags', dependencies: ['db', 'metrics'] },
);
