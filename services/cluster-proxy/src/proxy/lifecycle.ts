import type pg from 'pg';
import { Code, ConnectError } from '@connectrpc/connect';
import type { EventBus } from '@gsp/events';
import type { FlagsClient } from '@gsp/flags-client';
import { serveMetrics } from '@gsp/service-kit';
import type { ClusterProxyConfig } from '../config.js';
import type { KubectlFront } from '../kubectl/front.js';
import type { ProxyMetrics } from '../metrics.js';
import type { Presence } from '../presence.js';
import type { Replicas } from '../replicas.js';
import type { RevocationWatch } from '../revocation/revocation.js';
import type { TunnelServer } from '../tunnel/server.js';
import type { TunnelRegistry } from '../tunnel/tunnel.js';

/** What the proxy is made of, as `buildClusterProxy` wired it. */
export interface ProxyParts {
  config: ClusterProxyConfig;
  front: KubectlFront;
  tunnels: TunnelServer;
  registry: TunnelRegistry;
  presence: Presence;
  replicas: Replicas;
  revocations: RevocationWatch;
  metrics: ProxyMetrics;
  flags: FlagsClient;
  events: EventBus;
  pool: pg.Pool;
}

/**
 * The proxy's start and its two stops: `drain` (SIGTERM: unready, agents told, what is in flight
 * finished within DRAIN_GRACE) and `close` (what is in flight is cut). Each stop runs once; a
 * `close` during a drain waits for it.
 */
export class ProxyLifecycle {
  private metricsServer: Awaited<ReturnType<typeof serveMetrics>> | undefined;
  private closing: Promise<void> | undefined;
  private draining: Promise<void> | undefined;

  constructor(private readonly parts: ProxyParts) {}

  async listen(): Promise<{ url: string; tunnelUrl: string; metricsUrl: string }> {
    const { config, front, tunnels, presence, metrics } = this.parts;
    presence.start();
    // Registered (and the replica count read) before agents can connect, so the first hello tells it.
    await presence.heartbeat();
    const url = await front.app.listen({ port: config.port, host: config.host });
    const tunnelUrl = await tunnels.listen(config.tunnelPort, config.host);
    this.metricsServer = await serveMetrics(metrics.registry, config.metricsPort, config.host, { http: config.http });
    return { url, tunnelUrl, metricsUrl: this.metricsServer.url };
  }

  drain(): Promise<void> {
    if (this.closing && !this.draining) return this.closing;
    this.draining ??= this.drainThenClose();
    return this.draining;
  }

  close(): Promise<void> {
    // Once: a test (or a second signal) may ask again while the first close runs.
    this.closing ??= this.shutDown();
    return this.closing;
  }

  /** `drained`: the agents were told (`drain`), so their tunnels end cleanly instead of failing `unavailable`. */
  private async shutDown(drained = false): Promise<void> {
    const { front, tunnels, registry, presence, revocations, flags, events, pool } = this.parts;
    revocations.stop();
    await this.metricsServer?.close();
    const shutdown = 'the proxy is shutting down';
    for (const tunnel of registry.all()) {
      tunnel.close(
        { code: 503, message: shutdown },
        drained ? undefined : new ConnectError(shutdown, Code.Unavailable),
      );
    }
    await tunnels.close();
    // After the tunnels: their drops are queued by then, and the rest of this replica's rows go with them.
    await presence.close();
    front.app.server.closeAllConnections();
    await front.app.close();
    await flags.close();
    await events.close();
    await pool.end();
  }

  private async drainThenClose(): Promise<void> {
    const { config, front, registry, replicas } = this.parts;
    const log = front.app.log;
    const started = performance.now();
    const counted = replicas.drain().catch((err: unknown) => {
      log.warn({ err: { message: (err as Error).message } }, 'could not mark this replica draining in proxy_replicas');
    });
    front.drain();
    registry.stopWaiting();
    for (const tunnel of registry.all()) tunnel.control({ case: 'drain', value: {} });
    log.info(
      { inFlight: front.inFlight, tunnels: registry.all().length, graceMs: config.drainGraceMs },
      'draining: unready, refusing new tunnels and connections, finishing what is in flight',
    );
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), config.drainGraceMs);
    });
    const cut = await Promise.race([front.idle().then(() => false), graceOver]);
    clearTimeout(timer);
    await counted;
    log.info(
      { ms: Math.round(performance.now() - started), cutInFlight: cut ? front.inFlight : 0 },
      cut ? 'drain grace over: cutting what is still in flight' : 'drained: nothing in flight',
    );
    await (this.closing ??= this.shutDown(true));
  }
}
