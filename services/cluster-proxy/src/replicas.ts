import type pg from 'pg';

export interface ReplicasOptions {
  pool: Pick<pg.Pool, 'query'>;
  /** `PROXY_REPLICA_ID`: this replica's row. */
  replicaId: string;
  /** `PRESENCE_LEASE`: the row lives this long without a renewal (renewed with the presence heartbeat). */
  leaseMs: number;
}

/**
 * This replica's row in `proxy_replicas`, and how many replicas serve: the rows whose lease is
 * live and that are not draining, this one included while it serves (never less than 1). Each
 * renewal also deletes rows whose lease ran out (a replica killed without a goodbye), taking only
 * rows no other replica is deleting, as every replica does it. When the database cannot be read,
 * the last count stands.
 */
export class Replicas {
  private current = 1;
  private draining = false;
  private registered = false;
  private closed = false;
  /** The last write: writes run one after another, so a heartbeat begun before a drain cannot undo it. */
  private writing: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<(count: number) => void>();

  constructor(private readonly options: ReplicasOptions) {}

  /** The replicas serving now, as last read (1 until the first renewal). */
  get count(): number {
    return this.current;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** `listener` hears every change of the count while this replica serves. */
  onChange(listener: (count: number) => void): void {
    this.listeners.add(listener);
  }

  /** Writes this replica's row (registering it at the first call), deletes lapsed rows, and reads the count. */
  renew(): Promise<void> {
    const next = this.writing.catch(() => undefined).then(() => this.write());
    this.writing = next;
    return next;
  }

  private async write(): Promise<void> {
    if (this.closed) return;
    const fresh = !this.registered;
    const { rows } = await this.options.pool.query<{ others: number }>(
      `WITH mine AS (
         INSERT INTO proxy_replicas (replica_id, started_at, expires_at, draining)
         VALUES ($1, now(), now() + $2 * interval '1 millisecond', $3)
         ON CONFLICT (replica_id) DO UPDATE SET
           expires_at = EXCLUDED.expires_at,
           draining = EXCLUDED.draining,
           started_at = CASE WHEN $4 THEN now() ELSE proxy_replicas.started_at END
       ), lapsed AS (
         DELETE FROM proxy_replicas WHERE replica_id IN (
           SELECT replica_id FROM proxy_replicas
           WHERE expires_at <= now() AND replica_id <> $1
           FOR UPDATE SKIP LOCKED
         )
       )
       SELECT count(*)::int AS others FROM proxy_replicas
       WHERE expires_at > now() AND NOT draining AND replica_id <> $1`,
      [this.options.replicaId, this.options.leaseMs, this.draining, fresh],
    );
    this.registered = true;
    // The statement's snapshot does not see its own write: this replica counts itself while it serves.
    const count = Math.max(1, (rows[0]?.others ?? 0) + (this.draining ? 0 : 1));
    if (count === this.current || this.closed) return;
    this.current = count;
    if (!this.draining) for (const listener of this.listeners) listener(count);
  }

  /** This replica stops counting (SIGTERM): its row says draining from now on. */
  async drain(): Promise<void> {
    this.draining = true;
    await this.renew();
  }

  /** Deletes this replica's row (a clean stop), so the others count it out at their next renewal. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writing.catch(() => undefined);
    await this.options.pool.query('DELETE FROM proxy_replicas WHERE replica_id = $1', [this.options.replicaId]);
  }
}
