import type { Http2SecureServer, Http2Server } from 'node:http2';
import type { Server as HttpsServer } from 'node:https';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import pg from 'pg';
import { Code, ConnectError } from '@connectrpc/connect';
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
  flags: FlagsClient;
  rights: Rights;
  /** This replica's tunnels as the API server sees them (`agent_tunnels`). */
  presence: Presence;
  /** Re-checks every live tunnel and stream now and closes those whose switch is off or whose right ended. */
  sweep(): Promise<void>;
  listen(): Promise<{ url: string; tunnelUrl: string; metricsUrl: string }>;
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
  const metrics = createMetrics(() => registry.all().length);
  // query_timeout also drops the connection of a query that never answers (a stalled link), so the pool recovers.
  const pool = new pg.Pool({
    connectionString: config.databaseUrl,
    connectionTimeoutMillis: DATABASE_TIMEOUT_MS,
    query_timeout: DATABASE_TIMEOUT_MS,
    max: 5,
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
  const flags = createFlagsClient({
    pool,
    redisUrl: config.redisUrl,
    redisPrefix: config.redisKeyPrefix,
    redisConnectionName: `${config.redisKeyPrefix}cluster-proxy`,
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
  front.serve({ verifyToken, cliAccess, rights, registry, metrics });
  const presence = new Presence({
    pool,
    replicaId: config.replicaId,
    leaseMs: config.presenceLeaseMs,
    log: app.log,
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
  });
  const revocations = watchRevocations({
    registry,
    rights,
    cliAccess,
    flags,
    metrics,
    log: app.log,
    intervalMs: config.watchIntervalMs,
  });
  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> | undefined;
  let closing: Promise<void> | undefined;

  async function shutDown(): Promise<void> {
    revocations.stop();
    await metricsServer?.close();
    const shutdown = 'the proxy is shutting down';
    for (const tunnel of registry.all()) {
      tunnel.close({ code: 503, message: shutdown }, new ConnectError(shutdown, Code.Unavailable));
    }
    await tunnels.close();
    // After the tunnels: their drops are queued by then, and the rest of this replica's rows go with them.
    await presence.close();
    app.server.closeAllConnections();
    await app.close();
    await flags.close();
    await pool.end();
  }

  return {
    app,
    tunnelServer: tunnels.server,
    registry,
    metrics,
    flags,
    rights,
    presence,
    sweep: revocations.sweep,
    async listen() {
      presence.start();
      const url = await app.listen({ port: config.port, host: config.host });
      const tunnelUrl = await tunnels.listen(config.tunnelPort, config.host);
      metricsServer = await serveMetrics(metrics.registry, config.metricsPort, config.host, { http: config.http });
      return { url, tunnelUrl, metricsUrl: metricsServer.url };
    },
    close() {
      // Once: a test (or a second signal) may ask again while the first close runs.
      closing ??= shutDown();
      return closing;
    },
  };
}
