import type pg from 'pg';
import { dropProxyTunnels, dropTunnel, readPresence, recordTunnel, renewLeases } from '@gsp/platform-contract';
import type { HeldTunnel } from '@gsp/platform-contract';
import type { Logger } from '@gsp/service-kit';
import type { Replicas } from './replicas.js';

export interface PresenceOptions {
  pool: pg.Pool;
  /** `PROXY_REPLICA_ID`: whose rows these are. */
  replicaId: string;
  /** `PRESENCE_LEASE`: a row lives this long without a heartbeat; the heartbeat runs every third of it. */
  leaseMs: number;
  /** This replica's row in `proxy_replicas`, renewed by the same heartbeat. */
  replicas?: Replicas;
  log: Logger;
}

/** What the tunnel service tells about the tunnels it holds. */
export interface TunnelPresence {
  connected(tunnel: HeldTunnel): void;
  disconnected(tunnel: HeldTunnel): void;
}

/**
 * This replica's tunnels in `agent_tunnels`, where the API server reads which agents are
 * connected. Writes never hold up or fail a tunnel: they run in the background, in order per
 * cluster (a reconnect's record lands before the replaced tunnel's drop), and one that fails (the
 * database is down) is logged and repaired by the next heartbeat, which writes back what this
 * replica holds and removes what it no longer does.
 */
export class Presence implements TunnelPresence {
  private readonly held = new Map<string, HeldTunnel>();
  /** The last write queued per cluster. */
  private readonly queues = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private replicaBeating: Promise<void> | undefined;
  private closed = false;
  /** Warn once per outage, not at every heartbeat. */
  private failing = false;
  private replicaFailing = false;
  /** Writes and heartbeats that failed since start (each is retried by the next heartbeat). */
  failures = 0;

  constructor(private readonly options: PresenceOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.heartbeat(), Math.max(1, Math.floor(this.options.leaseMs / 3)));
    this.timer.unref();
  }

  connected(tunnel: HeldTunnel): void {
    if (this.closed) return;
    this.held.set(tunnel.tunnelId, tunnel);
    void this.enqueue(tunnel.clusterId, 'record', () =>
      recordTunnel(this.options.pool, { ...tunnel, proxyId: this.options.replicaId }, this.options.leaseMs),
    );
  }

  disconnected(tunnel: HeldTunnel): void {
    this.held.delete(tunnel.tunnelId);
    if (this.closed) return;
    void this.enqueue(tunnel.clusterId, 'drop', () => dropTunnel(this.options.pool, tunnel));
  }

  /**
   * Extends this replica's leases and repairs what earlier writes missed, and renews its
   * `proxy_replicas` row (reading how many replicas serve). Each of the two runs one at a time,
   * and neither waits for the other: a slow replica write never delays the leases.
   */
  heartbeat(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.beating ??= this.renew().finally(() => (this.beating = undefined));
    this.replicaBeating ??= this.renewReplica().finally(() => (this.replicaBeating = undefined));
    return Promise.all([this.beating, this.replicaBeating]).then(() => undefined);
  }

  /** Whether any replica holds a live tunnel of `clusterId` (false when the database cannot say). */
  async agentConnected(clusterId: string): Promise<boolean> {
    try {
      return (await readPresence(this.options.pool, [clusterId])).get(clusterId)?.connected === true;
    } catch {
      return false;
    }
  }

  /** Resolves once every write queued so far has been tried. */
  async settled(): Promise<void> {
    while (this.queues.size > 0) await Promise.all(this.queues.values());
  }

  /** Stops the heartbeat and removes every row of this replica (a graceful shutdown). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.all([this.beating, this.replicaBeating]);
    await this.settled();
    try {
      await dropProxyTunnels(this.options.pool, this.options.replicaId);
    } catch (err) {
      this.warn(err, "could not remove this replica's agent presence rows at shutdown; their leases will run out");
    }
    try {
      await this.options.replicas?.close();
    } catch (err) {
      this.warn(err, "could not remove this replica's proxy_replicas row at shutdown; its lease will run out");
    }
  }

  /** Its own once-per-outage warning: the table may fail alone (the API server not migrated yet). */
  private async renewReplica(): Promise<void> {
    try {
      await this.options.replicas?.renew();
      this.replicaFailing = false;
    } catch (err) {
      // Not in `failures`, which tells whether this heartbeat's presence writes failed.
      if (this.replicaFailing) return;
      this.replicaFailing = true;
      this.options.log.warn(
        { err: { message: (err as Error).message } },
        'could not renew this replica in proxy_replicas; will retry (the replica count stays as last read)',
      );
    }
  }

  private async renew(): Promise<void> {
    const failuresBefore = this.failures;
    try {
      const { recorded, dropped } = await renewLeases(
        this.options.pool,
        this.options.replicaId,
        [...this.held.values()],
        this.options.leaseMs,
        {
          stillHeld: (tunnelId) => this.held.has(tunnelId),
          inOrder: (clusterId, repair) => this.enqueue(clusterId, 'repair', repair),
        },
      );
      if (this.failures > failuresBefore) return;
      if (this.failing || recorded > 0 || dropped > 0)
        this.options.log.info({ recorded, dropped }, 'agent presence rows renewed and repaired');
      this.failing = false;
    } catch (err) {
      this.warn(err, 'could not renew the agent presence leases; will retry');
    }
  }

  /** Runs `write` after the cluster's earlier writes; resolves when it has been tried (a failure is logged). */
  private enqueue(clusterId: string, what: string, write: () => Promise<unknown>): Promise<void> {
    const previous = this.queues.get(clusterId) ?? Promise.resolve();
    const next = previous.then(write).then(
      () => undefined,
      (err: unknown) =>
        this.warn(err, `could not ${what} the agent presence of cluster ${clusterId}; the heartbeat will repair it`),
    );
    this.queues.set(clusterId, next);
    void next.finally(() => {
      if (this.queues.get(clusterId) === next) this.queues.delete(clusterId);
    });
    return next;
  }

  private warn(err: unknown, msg: string): void {
    this.failures += 1;
    if (this.failing) return;
    this.failing = true;
    // The message only: a driver error may carry the query's parameters.
    this.options.log.warn({ err: { message: (err as Error).message } }, msg);
  }
}
