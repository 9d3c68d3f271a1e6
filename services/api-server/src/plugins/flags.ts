import fp from 'fastify-plugin';
import { createFlagsClient } from '@gsp/flags-client';
import type { FlagsClient } from '@gsp/flags-client';
import type { FlagsConfig } from '../config/index.js';
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
  outboxPollIntervalMs: number;
  outboxRelayEnabled: boolean;
}

/**
 * The flag read path (a cached `@gsp/flags-client` listening on the process's event bus), the
 * write path (FlagService) and the outbox relay that publishes committed writes on the bus to
 * every process.
 */
export default fp<FlagsPluginOptions>(
  async (app, opts) => {
    const bus = app.events;
    const client = createFlagsClient({
      pool: app.pg,
      bus,
      ttlMs: opts.ttlMs,
      pins: opts.pins,
      logger: app.log,
      registry: app.metrics.registry,
      ofrep: opts.ofrep,
    });
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
    });
  },
  { name: 'flags', dependencies: ['db', 'metrics', 'events'] },
);
