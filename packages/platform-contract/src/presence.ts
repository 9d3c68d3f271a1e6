import pg from 'pg';
import type { Queryable } from './clusters.js';
import { AGENT_PRESENCE_EVENT } from './events.js';
import type { AgentPresenceEvent } from './events.js';
import { enqueueEvent } from './outbox.js';

/**
 * Agent presence: each tunnel a proxy replica holds is a row of `agent_tunnels` with a lease its
 * heartbeat extends. Two states are kept apart on purpose:
 *
 * - what a read answers: the rows whose lease is live (`lease_expires_at > now()`), so a proxy
 *   killed without a goodbye stops counting the moment its lease runs out;
 * - what the events announce: every row present, live or not. Every write that can change it takes
 *   the cluster's advisory lock, compares it before and after, and enqueues one
 *   `agents.presence` event when it changed, so the events are exactly its changes, in order,
 *   whichever replica made them. The lease sweep deletes rows past their lease and announces that.
 *
 * A lease's renewal changes neither and takes no lock. Times are the database's clock, so proxy
 * and API-server clocks need not agree. A lease runs from when its write runs (`clock_timestamp()`),
 * not from its transaction's start (`now()`): a write that waited on a lock longer than a lease
 * would otherwise record one already spent, and the next heartbeat would announce a reconnect.
 */

/** A cluster's agent as the API answers it: connected while any proxy replica holds a live tunnel. */
export interface AgentPresence {
  connected: boolean;
  /** RFC 3339: the oldest live tunnel's start; null when disconnected. */
  since: string | null;
}

/** One tunnel a proxy replica holds. */
export interface HeldTunnel {
  tunnelId: string;
  clusterId: string;
}

/** What one heartbeat did: leases extended, rows written back (missing or lapsed), rows of closed tunnels removed. */
export interface RenewOutcome {
  renewed: number;
  recorded: number;
  dropped: number;
}

/** A `pg.Pool` (or anything that lends a client for a transaction). */
export type TransactionPool = Pick<pg.Pool, 'connect'>;

/**
 * The SQL expression for the `since` of the cluster whose id is `clusterIdSql` (a column or
 * parameter): its oldest live tunnel's start, NULL when none is live. One indexed subquery, so a
 * list of clusters reads its presence in the same query.
 */
export const agentSinceSql = (clusterIdSql: string): string =>
  '(SELECT min(t.connected_at) FROM agent_tunnels t ' +
  `WHERE t.cluster_id = ${clusterIdSql} AND t.lease_expires_at > now())`;

/** The presence a `since` read with `agentSinceSql` stands for. */
export const agentPresence = (since: Date | null): AgentPresence =>
  since === null ? { connected: false, since: null } : { connected: true, since: since.toISOString() };

/** The presence of each of `clusterIds` (live tunnels only), in one query; an unknown id reads disconnected. */
export async function readPresence(db: Queryable, clusterIds: readonly string[]): Promise<Map<string, AgentPresence>> {
  const { rows } = await db.query<{ cluster_id: string; since: Date | null }>(
    `SELECT c AS cluster_id, ${agentSinceSql('c')} AS since FROM unnest($1::text[]) AS c`,
    [clusterIds],
  );
  return new Map(rows.map((r) => [r.cluster_id, agentPresence(r.since)]));
}

/**
 * Serialises presence writes of one cluster across replicas (proxies and API servers). Two int4
 * keys: a namespace per schema (test schemas share a server) and the cluster.
 */
const lockKeys = (clusterIdSql: string): string =>
  `hashtext(current_schema() || ':agent-presence'), hashtext(${clusterIdSql})`;

/** An error PostgreSQL answered (with a SQLSTATE), as opposed to a timeout or a broken connection. */
const isServerError = (err: unknown): boolean => err instanceof pg.DatabaseError;

/**
 * One transaction on its own client. A failed one is rolled back, or its connection dropped
 * (see below), never returned to the pool mid-transaction. The server ends the transaction itself if its client
 * goes silent while holding a cluster's lock.
 */
async function inTransaction<T>(pool: TransactionPool, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  // A connection that breaks while checked out emits 'error' on its client, which the pool does
  // not listen to then: unheard, it would end the process. The query in flight fails too.
  const onError = (): void => {
    broken = true;
  };
  client.on('error', onError);
  try {
    await client.query("BEGIN; SET LOCAL idle_in_transaction_session_timeout = '10s'");
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    // Only an error the server answered leaves the connection in step; after a timeout or a
    // broken link a ROLLBACK would queue behind the lost answer. Dropping the session rolls back.
    broken =
      !isServerError(err) ||
      (await client.query('ROLLBACK').then(
        () => false,
        () => true,
      ));
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

/** The state the events announce for `clusterId`: every row present, live or not. */
async function announcedState(tx: Queryable, clusterId: string): Promise<AgentPresence> {
  const { rows } = await tx.query<{ since: Date | null }>(
    'SELECT min(connected_at) AS since FROM agent_tunnels WHERE cluster_id = $1',
    [clusterId],
  );
  return agentPresence(rows[0]?.since ?? null);
}

/** `announcedState` of several clusters in one query. */
async function announcedStates(tx: Queryable, clusterIds: readonly string[]): Promise<Map<string, AgentPresence>> {
  const { rows } = await tx.query<{ cluster_id: string; since: Date }>(
    'SELECT cluster_id, min(connected_at) AS since FROM agent_tunnels WHERE cluster_id = ANY($1) GROUP BY cluster_id',
    [clusterIds],
  );
  return new Map(rows.map((r) => [r.cluster_id, agentPresence(r.since)]));
}

const samePresence = (a: AgentPresence, b: AgentPresence): boolean =>
  a.connected === b.connected && a.since === b.since;

/** Enqueues the cluster's presence event if its announced state changed; the cluster's lock must be held. */
async function announceChange(tx: Queryable, clusterId: string, before: AgentPresence): Promise<boolean> {
  const after = await announcedState(tx, clusterId);
  if (samePresence(before, after)) return false;
  const { rows } = await tx.query<{ org: string }>('SELECT org FROM clusters WHERE id = $1', [clusterId]);
  // A cluster deleted meanwhile took its rows with it; its deletion is announced as such.
  if (!rows[0]) return false;
  const event: AgentPresenceEvent = { org: rows[0].org, clusterId, ...after };
  await enqueueEvent(tx, AGENT_PRESENCE_EVENT, `cluster:${clusterId}`, event);
  return true;
}

/** Runs `change` under the cluster's lock and announces the presence it leaves, if it changed. */
function changePresence(pool: TransactionPool, clusterId: string, change: (tx: pg.PoolClient) => Promise<unknown>) {
  return inTransaction(pool, async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(${lockKeys('$1')})`, [clusterId]);
    const before = await announcedState(tx, clusterId);
    await change(tx);
    return announceChange(tx, clusterId, before);
  });
}

/**
 * Records a tunnel `proxyId` holds, live for `leaseMs`; resolves true when the cluster's presence
 * changed (and an event was enqueued). Recording it again renews it; a row whose lease had
 * lapsed starts again from now, since readers were told it was gone. A deleted cluster records nothing.
 */
export function recordTunnel(
  pool: TransactionPool,
  tunnel: HeldTunnel & { proxyId: string },
  leaseMs: number,
): Promise<boolean> {
  return changePresence(pool, tunnel.clusterId, (tx) =>
    tx.query(
      `INSERT INTO agent_tunnels (tunnel_id, cluster_id, proxy_id, connected_at, lease_expires_at)
       SELECT $2, id, $3, now(), clock_timestamp() + $4 * interval '1 millisecond' FROM clusters WHERE id = $1
       ON CONFLICT (tunnel_id) DO UPDATE SET
         proxy_id = EXCLUDED.proxy_id,
         lease_expires_at = EXCLUDED.lease_expires_at,
         connected_at = CASE WHEN agent_tunnels.lease_expires_at > clock_timestamp()
                             THEN agent_tunnels.connected_at ELSE EXCLUDED.connected_at END`,
      [tunnel.clusterId, tunnel.tunnelId, tunnel.proxyId, leaseMs],
    ),
  );
}

/** Removes a tunnel that ended; resolves true when the cluster's presence changed. */
export function dropTunnel(pool: TransactionPool, tunnel: HeldTunnel): Promise<boolean> {
  return changePresence(pool, tunnel.clusterId, (tx) =>
    tx.query('DELETE FROM agent_tunnels WHERE tunnel_id = $1', [tunnel.tunnelId]),
  );
}

/** Removes every row of `proxyId` (a replica shutting down), one cluster at a time; resolves with the rows removed. */
export async function dropProxyTunnels(pool: TransactionPool & Queryable, proxyId: string): Promise<number> {
  const { rows } = await pool.query<{ cluster_id: string }>(
    'SELECT DISTINCT cluster_id FROM agent_tunnels WHERE proxy_id = $1',
    [proxyId],
  );
  let dropped = 0;
  for (const { cluster_id: clusterId } of rows) {
    await changePresence(pool, clusterId, async (tx) => {
      const result = await tx.query('DELETE FROM agent_tunnels WHERE proxy_id = $1 AND cluster_id = $2', [
        proxyId,
        clusterId,
      ]);
      dropped += result.rowCount ?? 0;
    });
  }
  return dropped;
}

/** How a heartbeat's repairs fit with the proxy's own writes. */
export interface RenewOptions {
  /** Whether the replica still holds the tunnel, asked just before each repair (default: it is in `held`). */
  stillHeld?: (tunnelId: string) => boolean;
  /**
   * Runs a repair in order with the replica's other writes for that cluster, so a tunnel that
   * ends meanwhile is not written back after its drop (default: at once).
   */
  inOrder?: (clusterId: string, repair: () => Promise<void>) => Promise<void>;
}

/**
 * One heartbeat of `proxyId`, which holds `held`: extends the live leases of those tunnels (one
 * statement, no lock: a renewal changes no presence), writes back with an event the ones missing
 * or lapsed (the database was down when they connected, or their lease ran out), and removes with
 * an event its rows of tunnels it no longer holds (the database was down when they ended, or the
 * replica restarted under the same id).
 */
export async function renewLeases(
  pool: TransactionPool & Queryable,
  proxyId: string,
  held: readonly HeldTunnel[],
  leaseMs: number,
  options: RenewOptions = {},
): Promise<RenewOutcome> {
  const ids = held.map((h) => h.tunnelId);
  const holds = options.stillHeld ?? ((tunnelId: string) => ids.includes(tunnelId));
  const inOrder = options.inOrder ?? ((_clusterId: string, repair: () => Promise<void>) => repair());
  const renewed = await pool.query<{ tunnel_id: string }>(
    `UPDATE agent_tunnels SET lease_expires_at = clock_timestamp() + $3 * interval '1 millisecond'
     WHERE proxy_id = $1 AND tunnel_id = ANY($2) AND lease_expires_at > clock_timestamp() RETURNING tunnel_id`,
    [proxyId, ids, leaseMs],
  );
  const done = new Set(renewed.rows.map((r) => r.tunnel_id));
  let recorded = 0;
  for (const tunnel of held) {
    if (done.has(tunnel.tunnelId)) continue;
    await inOrder(tunnel.clusterId, async () => {
      if (!holds(tunnel.tunnelId)) return;
      await recordTunnel(pool, { ...tunnel, proxyId }, leaseMs);
      recorded += 1;
    });
  }
  const stale = await pool.query<{ tunnel_id: string; cluster_id: string }>(
    'SELECT tunnel_id, cluster_id FROM agent_tunnels WHERE proxy_id = $1 AND NOT (tunnel_id = ANY($2))',
    [proxyId, ids],
  );
  let dropped = 0;
  for (const { tunnel_id: tunnelId, cluster_id: clusterId } of stale.rows) {
    await inOrder(clusterId, async () => {
      if (holds(tunnelId)) return;
      await dropTunnel(pool, { tunnelId, clusterId });
      dropped += 1;
    });
  }
  return { renewed: done.size, recorded, dropped };
}

/** Rows taken per expiry transaction. */
const EXPIRY_BATCH = 500;

/**
 * Deletes the tunnels whose lease ran out (their proxy died or lost the database) and announces
 * each affected cluster's presence once; resolves with the rows deleted. Safe with several API-server
 * replicas at once: a cluster whose lock another transaction holds is left for the next sweep,
 * and rows are taken with SKIP LOCKED, so a lapsed row is deleted and announced exactly once and
 * a sweep never waits on anyone.
 */
export async function expireLeases(pool: TransactionPool): Promise<number> {
  let total = 0;
  for (;;) {
    const { deleted, full } = await inTransaction(pool, async (tx) => {
      const locked = await tx.query<{ cluster_id: string }>(
        `SELECT cluster_id FROM (
           SELECT DISTINCT cluster_id FROM agent_tunnels WHERE lease_expires_at <= now() LIMIT ${EXPIRY_BATCH}
         ) lapsed WHERE pg_try_advisory_xact_lock(${lockKeys('cluster_id')})`,
      );
      const clusters = locked.rows.map((r) => r.cluster_id);
      if (clusters.length === 0) return { deleted: 0, full: false };
      const before = await announcedStates(tx, clusters);
      const gone = await tx.query<{ cluster_id: string }>(
        `DELETE FROM agent_tunnels WHERE tunnel_id IN (
           SELECT tunnel_id FROM agent_tunnels
           WHERE lease_expires_at <= now() AND cluster_id = ANY($1)
           FOR UPDATE SKIP LOCKED
         ) RETURNING cluster_id`,
        [clusters],
      );
      for (const clusterId of new Set(gone.rows.map((r) => r.cluster_id)))
        await announceChange(tx, clusterId, before.get(clusterId) ?? agentPresence(null));
      // Rows another transaction holds are left for the next sweep, not waited for.
      return { deleted: gone.rows.length, full: clusters.length === EXPIRY_BATCH && gone.rows.length > 0 };
    });
    total += deleted;
    if (!full) return total;
  }
}
