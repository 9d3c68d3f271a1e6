import type { Http2SecureServer, Http2Server } from 'node:http2';
import type { Server as HttpsServer } from 'node:https';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import pg from 'pg';
import { Code, ConnectError } from '@connectrpc/connect';
import { createEventBus } from '@gsp/events';
import type { EventBus } from '@gsp/events';
import { createFlagsClient } from '@gsp/flags-client';
import type { FlagsClient } from '@gsp/flags-client';
import { generateSelfSignedCertificate, serveMetrics } from '@gsp/service-kit';
import { useNodeTextEncoding } from '@gsp/tunnel-proto';
import type { ClusterProxyConfig } from './config.js';
import { createSwitch, createTokenVerifier } from './access.js';
import { createKubectlFront } from './front.js';
import { createMetrics } from './metrics.js';
import type { ProxyMetrics } from './metrics.js';
import { Presence } from './presence.js';
import { Replicas } from './replicas.js';
import { watchRevocations } from './revocation.js';
import { Rights } from './rights.js';
import { createTunnelServer } from './tunnel/server.js';
import { TunnelRegistry } from './tunnel/tunnel.js';

export interface ClusterProxy {
  /** The kubectl side (PORT). */
  app: FastifyInstance<HttpsServer>;
  tunnelServer: Http2Server | Http2SecureServer;
  registry: TunnelRegistry;
  metrics: ProxyMetrics;
  /** The process's one event bus: the flags client and the revocation watch listen on it. */
  events: EventBus;
  flags: FlagsClient;
  rights: Rights;
  /** This replica's tunnels as the API server sees them (`agent_tunnels`). */
  presence: Presence;
  /** This replica's row in `proxy_replicas`, and how many replicas serve. */
  replicas: Replicas;
  /** Re-checks every live tunnel and stream now and closes those whose switch is off or whose right ended. */
  sweep(): Promise<void>;
  listen(): Promise<{ url: string; tunnelUrl: string; metricsUrl: string }>;
  /**
   * The graceful stop (SIGTERM): unready at once, counted out of the replicas, new tunnels
   * refused, `drain` sent to every agent, no new kubectl connection; resolves once closed, when
   * nothing is in flight any more or DRAIN_GRACE has passed.
   */
  drain(): Promise<void>;
  /** The fast stop: what is in flight is cut now. */
  close(): Promise<void>;
}

/** Every query to the API server's database: a stalled store fails over to the caches instead of holding requests. */
const DATABASE_TIMEOUT_MS = 2000;

/**
 * The proxy: kubectl's side (`front.ts`, PORT), the agents' side (`tunnel/`, TUNNEL_PORT), what
 * both check access with, and the watch that closes what access no longer allows.
 */
export async function buildClusterProxy(
  config: ClusterProxyConfig,
  logger: FastifyServerOptions['logger'] = { level: config.logLevel },
): Promise<ClusterProxy> {
  useNodeTextEncoding();
  const registry = new TunnelRegistry();
  // query_timeout also drops the connection of a query that never answers (a stalled link), so the pool recovers.
  const pool = new pg.Pool({
    connectionString: config.databaseUrl,
    connectionTimeoutMillis: DATABASE_TIMEOUT_MS,
    query_timeout: DATABASE_TIMEOUT_MS,
    max: 5,
  });
  const replicas = new Replicas({ pool, replicaId: config.replicaId, leaseMs: config.presenceLeaseMs });
  const metrics = createMetrics(() => registry.all().length, {
    count: () => replicas.count,
    draining: () => replicas.isDraining,
  });
  // kubectl sends bearer tokens only over TLS, so PORT always speaks HTTPS.
  const https = config.tls ?? generateSelfSignedCertificate('gsp-cluster-proxy');
  const front = await createKubectlFront({ logger, https, http: config.http });
  const { app } = front;
  if (config.tls === undefined) {
    app.log.warn(
      'no TLS_CERT_FILE: serving a self-signed certificate (the API server needs PROXY_CA_FILE or PROXY_INSECURE_SKIP_TLS_VERIFY for kubeconfigs to trust it)',
    );
  }
  pool.on('error', (err) => app.log.warn({ err }, 'postgres connection error'));
  const events = createEventBus({
    redisUrl: config.redisUrl,
    prefix: config.redisKeyPrefix,
    connectionName: `${config.redisKeyPrefix}cluster-proxy`,
    log: app.log,
  });
  const flags = createFlagsClient({
    pool,
    bus: events,
    ttlMs: config.flagsCacheTtlMs,
    pins: config.pins,
    logger: app.log,
  });
  const cliAccess = createSwitch(flags, config.staleMode);
  const rights = new Rights({
    db: pool,
    platformId: config.platformId,
    ttlMs: config.flagsCacheTtlMs,
    staleMode: config.staleMode,
  });
  const verifyToken = createTokenVerifier({
    apiServerUrl: config.apiServerUrl,
    clockToleranceMs: config.clockToleranceMs,
  });
  const presence = new Presence({
    pool,
    replicaId: config.replicaId,
    leaseMs: config.presenceLeaseMs,
    replicas,
    log: app.log,
  });
  front.serve({
    verifyToken,
    cliAccess,
    rights,
    registry,
    metrics,
    tunnelWaitMs: config.tunnelWaitMs,
    agentConnected: (clusterId) => presence.agentConnected(clusterId),
  });
  // Agents dial until they hold a tunnel to this many replicas: a scale-up reaches them at the next heartbeat.
  replicas.onChange((count) => {
    app.log.info({ replicas: count }, 'the number of serving proxy replicas changed');
    for (const tunnel of registry.all()) tunnel.control({ case: 'replicas', value: { count } });
  });
  const tunnels = createTunnelServer({
    tls: config.tunnelTls,
    pingIntervalMs: config.pingIntervalMs,
    pool,
    registry,
    cliAccess,
    log: app.log,
    metrics,
    presence,
    replicaId: config.replicaId,
    replicas,
  });
  const revocations = watchRevocations({
    registry,
    rights,
    cliAccess,
    flags,
    events,
    metrics,
    log: app.log,
    intervalMs: config.watchIntervalMs,
  });
  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> | undefined;
  let closing: Promise<void> | undefined;
  let draining: Promise<void> | undefined;

  /** `drained`: the agents were told (`drain`), so their tunnels end cleanly instead of failing `unavailable`. */
  async function shutDown(drained = false): Promise<void> {
    revocations.stop();
    await metricsServer?.close();
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
    app.server.closeAllConnections();
    await app.close();
    await flags.close();
    await events.close();
    await pool.end();
  }

  async function drainThenClose(): Promise<void> {
    const started = performance.now();
    const counted = replicas.drain().catch((err: unknown) => {
      app.log.warn(
        { err: { message: (err as Error).message } },
        'could not mark this replica draining in proxy_replicas',
      );
    });
    front.drain();
    registry.stopWaiting();
    for (const tunnel of registry.all()) tunnel.control({ case: 'drain', value: {} });
    app.log.info(
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
    app.log.info(
      { ms: Math.round(performance.now() - started), cutInFlight: cut ? front.inFlight : 0 },
      cut ? 'drain grace over: cutting what is still in flight' : 'drained: nothing in flight',
    );
    await (closing ??= shutDown(true));
  }

  return {
    app,
    tunnelServer: tunnels.server,
    registry,
    metrics,
    events,
    flags,
    rights,
    presence,
    replicas,
    sweep: revocations.sweep,
    async listen() {
      presence.start();
      // Registered (and the replica count read) before agents can connect, so the first hello tells it.
      await presence.heartbeat();
      const url = await app.listen({ port: config.port, host: config.host });
      const tunnelUrl = await tunnels.listen(config.tunnelPort, config.host);
      metricsServer = await serveMetrics(metrics.registry, config.metricsPort, config.host, { http: config.http });
      return { url, tunnelUrl, metricsUrl: metricsServer.url };
    },
    drain() {
      if (closing && !draining) return closing;
      draining ??= drainThenClose();
      return draining;
    },
    close() {
      // Once: a test (or a second signal) may ask again while the first close runs.
      closing ??= shutDown();
      return closing;
    },
  };
}
