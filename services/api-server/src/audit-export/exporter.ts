import type pg from 'pg';
import { ship } from '@gsp/audit-export';
import type { Backlog, BackoffOptions, ExportMetrics, ExportRecord, Sink } from '@gsp/audit-export';
import type { Logger } from '@gsp/service-kit';

export interface AuditExporterOptions {
  pool: pg.Pool;
  sinks: readonly Sink[];
  /** Rows per batch (AUDIT_EXPORT_BATCH_MAX). */
  batchMax: number;
  backoff: BackoffOptions;
  metrics: ExportMetrics;
  log: Logger;
  /** How often a sink looks for new rows, and how often a replica that is not its exporter asks again. */
  pollIntervalMs: number;
}

/** An audit row as the exporter reads it. */
interface AuditRow {
  id: string;
  xid: string;
  action: string;
  actor: string;
  resource: string;
  org: string | null;
  details: Record<string, unknown>;
  request_id: string | null;
  created_at: Date;
}

/** The row as a record: its id is the row's, the same whichever replica sends it and however often. */
export function recordOf(row: AuditRow): ExportRecord {
  return {
    id: `audit-${row.id}`,
    type: `io.gsp.api-server.${row.action}`,
    time: row.created_at.toISOString(),
    data: {
      id: row.id,
      action: row.action,
      actor: row.actor,
      resource: row.resource,
      ...(row.org === null ? {} : { org: row.org }),
      details: row.details,
      ...(row.request_id === null ? {} : { requestId: row.request_id }),
      createdAt: row.created_at.toISOString(),
    },
  };
}

/**
 * Rows after the cursor whose transactions have all ended, in (xid, id) order: nothing committed later can come
 * before them.
 */
const NEXT_BATCH = `
SELECT id, xid::text AS xid, action, actor, resource, org, details, request_id, created_at
  FROM audit_events
 WHERE (xid, id) > ($1::xid8, $2::bigint)
   AND xid < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY xid, id
 LIMIT $3`;

/**
 * What waits for a sink after its stored cursor (everything when it has none yet), and the age of
 * the oldest of it: the same answer on every replica, whichever exports.
 */
const BACKLOG = `
SELECT count(e.id)::int AS records, coalesce(extract(epoch FROM now() - min(e.created_at)), 0)::float8 AS oldest
  FROM (SELECT $1::text AS sink) s
  LEFT JOIN audit_export_cursors c ON c.sink = s.sink
  JOIN audit_events e ON (e.xid, e.id) > (coalesce(c.last_xid, '0'::xid8), coalesce(c.last_id, 0))`;

/** A cancellable wait. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Exports the audit log (`audit_events`) to each configured sink, at least once and in order.
 * Each sink has one exporter across all replicas: the replica holding the sink's session-level
 * advisory lock, on a connection of its own (if that connection or replica dies, PostgreSQL
 * releases the lock and another replica takes over). It reads a batch after the sink's cursor,
 * delivers it (retrying with backoff while the receiver is down), then moves the cursor in the
 * same connection: a crash between delivery and the cursor's update sends that batch again, no
 * more. A batch the receiver refuses for good is kept in `audit_export_poison` and passed.
 */
export class AuditExporter {
  private readonly stopping = new AbortController();
  private readonly loops: Promise<void>[] = [];

  constructor(private readonly options: AuditExporterOptions) {}

  start(): void {
    for (const sink of this.options.sinks) this.loops.push(this.run(sink));
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.loops);
  }

  /**
   * Each sink's backlog as the table has it now: what the backlog gauges read when scraped, also
   * while a batch is stuck in its retries (and on a replica that is not the exporter).
   */
  async backlog(): Promise<Map<string, Backlog>> {
    const backlogs = new Map<string, Backlog>();
    for (const sink of this.options.sinks) {
      const { rows } = await this.options.pool.query<{ records: number; oldest: number }>(BACKLOG, [sink.name]);
      backlogs.set(sink.name, { records: rows[0]?.records ?? 0, oldestSeconds: rows[0]?.oldest ?? 0 });
    }
    return backlogs;
  }

  /**
   * Takes the sink's lock when free, exports while holding it; on any failure, drops the connection and tries
   * again.
   */
  private async run(sink: Sink): Promise<void> {
    const { signal } = this.stopping;
    while (!signal.aborted) {
      let client: pg.PoolClient | undefined;
      try {
        client = await this.options.pool.connect();
        // A broken connection fails the next query, which ends this turn.
        client.on('error', () => undefined);
        const { rows } = await client.query<{ ok: boolean }>(
          `SELECT pg_try_advisory_lock(hashtext(current_schema() || ':audit-export:' || $1)) AS ok`,
          [sink.name],
        );
        if (rows[0]?.ok) await this.export(sink, client, signal);
      } catch (err) {
        if (!signal.aborted)
          this.options.log.warn(
            { sink: sink.name, err: { message: (err as Error).message } },
            'audit export paused: the database could not be read; trying again',
          );
      } finally {
        // Destroyed, not returned to the pool: closing the session is what releases its lock.
        client?.release(true);
      }
      if (!signal.aborted) await pause(this.options.pollIntervalMs, signal);
    }
  }

  /** This replica is the sink's exporter: batches until stopped (or the connection fails: thrown). */
  private async export(sink: Sink, client: pg.PoolClient, signal: AbortSignal): Promise<void> {
    const { metrics, log } = this.options;
    log.info({ sink: sink.name }, 'exporting the audit log to this sink from this replica');
    await client.query('INSERT INTO audit_export_cursors (sink) VALUES ($1) ON CONFLICT (sink) DO NOTHING', [
      sink.name,
    ]);
    const cursor = await client.query<{ last_xid: string; last_id: string }>(
      'SELECT last_xid::text AS last_xid, last_id::text AS last_id FROM audit_export_cursors WHERE sink = $1',
      [sink.name],
    );
    let lastXid = cursor.rows[0]?.last_xid ?? '0';
    let lastId = cursor.rows[0]?.last_id ?? '0';
    while (!signal.aborted) {
      const { rows } = await client.query<AuditRow>(NEXT_BATCH, [lastXid, lastId, this.options.batchMax]);
      const last = rows.at(-1);
      if (!last) {
        await pause(this.options.pollIntervalMs, signal);
        continue;
      }
      const records = rows.map(recordOf);
      const result = await ship(sink, records, { backoff: this.options.backoff, signal, metrics, log });
      if (result === undefined) return;
      if (result.outcome === 'poison')
        await client.query(
          'INSERT INTO audit_export_poison (sink, first_id, last_id, status, reason, records) ' +
            'VALUES ($1, $2, $3, $4, $5, $6)',
          [sink.name, rows[0]?.id, last.id, result.status, result.reason.slice(0, 1000), JSON.stringify(records)],
        );
      await client.query(
        'UPDATE audit_export_cursors SET last_xid = $2::xid8, last_id = $3, updated_at = now() WHERE sink = $1',
        [sink.name, last.xid, last.id],
      );
      lastXid = last.xid;
      lastId = last.id;
    }
  }
}
