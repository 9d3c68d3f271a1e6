import type { Http2SecureServer, Http2Server } from 'node:http2';
import type { Server as HttpsServer } from 'node:https';
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import pg from 'pg';
import { createEventBus } from '@gsp/events';
import type { EventBus } from '@gsp/events';
import { createFlagsClient } from '@gsp/flags-client';
import type { FlagsClient } from '@gsp/flags-client';
import { generateSelfSignedCertificate } from '@gsp/service-kit';
import { useNodeTextEncoding } from '@gsp/tunnel-proto';
import type { ClusterProxyConfig } from '../config.js';
import { createSwitch, createTokenVerifier } from '../access.js';
import { createKubectlFront } from '../kubectl/front.js';
import type { KubectlFront } from '../kubectl/front.js';
import { ProxyLifecycle } from './lifecycle.js';
import { createMetrics } from '../metrics.js';
import type { ProxyMetrics } from '../metrics.js';
import { Presence } from '../presence.js';
import { Replicas } from '../replicas.js';
import { watchRevocations } from '../revocation/revocation.js';
import { Rights } from '../rights.js';
import { createTunnelServer } from '../tunnel/server.js';
import { TunnelRegistry } from '../tunnel/tunnel.js';

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
 * The API server's database, read for access; `query_timeout` also drops the connection of a query that never
 * answers (a stalled link), so the pool recovers.
 */
function databasePool(config: ClusterProxyConfig, log: FastifyBaseLogger): pg.Pool {
  const pool = new pg.Pool({
    connectionString: config.databaseUrl,
    connectionTimeoutMillis: DATABASE_TIMEOUT_MS,
    query_timeout: DATABASE_TIMEOUT_MS,
    max: 5,
  });
  pool.on('error', (err) => log.warn({ err }, 'postgres connection error'));
  return pool;
}

/** The proxy's metrics, with the gauges read from the registry and the replica count at scrape. */
function proxyMetrics(registry: TunnelRegistry, replicas: Replicas): ProxyMetrics {
  return createMetrics(() => registry.all().length, {
    count: () => replicas.count,
    draining: () => replicas.isDraining,
  });
}

/** PORT: kubectl sends bearer tokens only over TLS, so it always speaks HTTPS. */
async function kubectlSide(config: ClusterProxyConfig, logger: FastifyServerOptions['logger']): Promise<KubectlFront> {
  const https = config.tls ?? generateSelfSignedCertificate('gsp-cluster-proxy');
  const front = await createKubectlFront({ logger, https, http: config.http });
  if (config.tls === undefined) {
    front.app.log.warn(
      'no TLS_CERT_FILE: serving a self-signed certificate ' +
        '(the API server needs PROXY_CA_FILE or PROXY_INSECURE_SKIP_TLS_VERIFY for kubeconfigs to trust it)',
    );
  }
  return front;
}

/** What both sides check access with: the switch (through the flags client and its event bus), rights and tokens. */
function accessChecks(config: ClusterProxyConfig, pool: pg.Pool, log: FastifyBaseLogger) {
  const events = createEventBus({
    redisUrl: config.redisUrl,
    prefix: config.redisKeyPrefix,
    connectionName: `${config.redisKeyPrefix}cluster-proxy`,
    log,
  });
  const flags = createFlagsClient({ pool, bus: events, ttlMs: config.flagsCacheTtlMs, pins: config.pins, logger: log });
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
  return { events, flags, cliAccess, rights, verifyToken };
}

/** Agents dial until they hold a tunnel to this many replicas: a scale-up reaches them at the next heartbeat. */
function announceReplicaCount(replicas: Replicas, registry: TunnelRegistry, log: FastifyBaseLogger): void {
  replicas.onChange((count) => {
    log.info({ replicas: count }, 'the number of serving proxy replicas changed');
    for (const tunnel of registry.all()) tunnel.control({ case: 'replicas', value: { count } });
  });
}

/**
 * The proxy: kubectl's side (`kubectl/`, PORT), the agents' side (`tunnel/`, TUNNEL_PORT), what
 * both check access with, and the watch that closes what access no longer allows.
 */
export async function buildClusterProxy(
  config: ClusterProxyConfig,
  logger: FastifyServerOptions['logger'] = { level: config.logLevel },
): Promise<ClusterProxy> {
  useNodeTextEncoding();
  const registry = new TunnelRegistry();
  const front = await kubectlSide(config, logger);
  const { app } = front;
  const pool = databasePool(config, app.log);
  const replicas = new Replicas({ pool, replicaId: config.replicaId, leaseMs: config.presenceLeaseMs });
  const metrics = proxyMetrics(registry, replicas);
  const { events, flags, cliAccess, rights, verifyToken } = accessChecks(config, pool, app.log);
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
  announceReplicaCount(replicas, registry, app.log);
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
  const lifecycle = new ProxyLifecycle({
    config,
    front,
    tunnels,
    registry,
    presence,
    replicas,
    revocations,
    metrics,
    flags,
    events,
    pool,
  });
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
    listen: () => lifecycle.listen(),
    drain: () => lifecycle.drain(),
    close: () => lifecycle.close(),
  };
}
