import type pg from 'pg';
import type { EventBus } from '@gsp/events';
import { OUTBOX_CHANNEL_SQL } from '@gsp/platform-contract';
import type { Logger } from '@gsp/service-kit';

/** `debug` too: every publish is worth a line when debugging, never otherwise. */
export type RelayLogger = Pick<Logger, 'warn'> & { debug(obj: object, msg: string): void };

export interface OutboxRelayOptions {
  pool: pg.Pool;
  /** Where events are published: the process's transport, which the flags client also listens on. */
  bus: EventBus;
  log: RelayLogger;
  /** Safety-net poll; NOTIFY normally wakes the relay within milliseconds. */
  pollIntervalMs?: number;
  batchSize?: number;
}

/**
 * Publishes committed outbox events in id order and marks them delivered (at least once).
 * A relay that dies between publish and mark leaves the row undelivered, so the next drain
 * publishes it again. Several replicas may run relays: a transaction-scoped advisory lock lets
 * one drain at a time, which also keeps events of one scope in commit order.
 */
export class OutboxRelay {
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  /** The LISTEN connection and the one way to give it back (exactly once). */
  private listener: { client: pg.PoolClient; drop(destroy: boolean): void } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly options: OutboxRelayOptions) {
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.batchSize = options.batchSize ?? 100;
  }

  async start(): Promise<void> {
    this.timer = setInterval(() => void this.wake(), this.pollIntervalMs);
    this.timer.unref();
    await this.listen();
    void this.wake();
  }

  private async listen(): Promise<void> {
    const client = await this.options.pool.connect();
    let released = false;
    const drop = (destroy: boolean) => {
      if (released) return;
      released = true;
      if (this.listener?.client === client) this.listener = undefined;
      client.release(destroy);
    };
    // A broken LISTEN connection may report several errors; it is dropped once and replaced,
    // and the poll covers the gap.
    client.on('error', () => {
      drop(true);
      this.scheduleListen();
    });
    try {
      const { rows } = await client.query<{ channel: string }>(`SELECT ${OUTBOX_CHANNEL_SQL} AS channel`);
      client.on('notification', () => void this.wake());
      await client.query(`LISTEN "${rows[0]!.channel}"`);
      this.listener = { client, drop };
    } catch (err) {
      drop(true);
      throw err;
    }
  }

  private scheduleListen(): void {
    if (this.stopped) return;
    setTimeout(() => {
      if (!this.stopped && !this.listener) this.listen().catch(() => this.scheduleListen());
    }, this.pollIntervalMs).unref();
  }

  /** Starts a drain, or asks the running one to go round again. Resolves when idle. */
  wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.draining) {
      this.again = true;
      return this.draining;
    }
    this.draining = (async () => {
      do {
        this.again = false;
        try {
          const outcome = await this.drainOnce();
          // Another replica holds the lock; look again shortly in case it missed our newest row.
          if (outcome === 'busy' && !this.stopped) setTimeout(() => void this.wake(), 25).unref();
        } catch (err) {
          this.options.log.warn(
            { err: { message: (err as Error).message } },
            'outbox relay could not deliver; will retry',
          );
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  private async drainOnce(): Promise<'done' | 'busy'> {
    for (;;) {
      const outcome = await this.deliverBatch();
      if (outcome !== 'more') return outcome;
    }
  }

  /** One transaction: take the relay lock, publish a batch in id order, mark it delivered. */
  private async deliverBatch(): Promise<'more' | 'done' | 'busy'> {
    const client = await this.options.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const locked = await client.query<{ ok: boolean }>(
        `SELECT pg_try_advisory_xact_lock(hashtext(current_schema() || ':outbox-relay')) AS ok`,
      );
      if (!locked.rows[0]?.ok) {
        await client.query('ROLLBACK');
        return 'busy';
      }
      const { rows } = await client.query<{ id: string; event_type: string; payload: object }>(
        'SELECT id, event_type, payload FROM outbox_events WHERE delivered_at IS NULL ORDER BY id LIMIT $1',
        [this.batchSize],
      );
      for (const row of rows) {
        await this.options.bus.publish(row.event_type, { ...row.payload, id: row.id });
        await client.query('UPDATE outbox_events SET delivered_at = now() WHERE id = $1 AND delivered_at IS NULL', [
          row.id,
        ]);
      }
      await client.query('COMMIT');
      return rows.length === 0 ? 'done' : 'more';
    } catch (err) {
      broken = true;
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release(broken);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.draining?.catch(() => {});
    const listener = this.listener;
    if (listener) {
      await listener.client.query('UNLISTEN *').catch(() => {});
      listener.drop(false);
    }
  }
}
