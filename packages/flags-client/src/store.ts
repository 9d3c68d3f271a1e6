import type pg from 'pg';
import { readFlagRows, switchRecordOf } from '@gsp/platform-contract';
import type { SwitchRecord } from '@gsp/platform-contract';
import type { Logger } from '@gsp/service-kit';
import type { FlagsMetrics } from './metrics.js';

/** Boolean values only, by flag key, of one scope. */
export type ScopeValues = ReadonlyMap<string, SwitchRecord>;

export interface StoreReaderOptions {
  pool: pg.Pool;
  /** How long a read may take before it counts as failed. */
  timeoutMs: number;
  /** After a failed read, how long before the store is tried again. */
  retryAfterMs: number;
  log: Logger;
  metrics: FlagsMetrics;
}

/**
 * Reads the `feature_flags` rows of the platform and of one cluster, bounded in time, and keeps
 * the store's state: after a failure it is not asked again for `retryAfterMs`, and an outage is
 * logged and counted once, when it starts and when it ends.
 */
export class StoreReader {
  private downUntil = 0;
  private outage = false;

  constructor(private readonly options: StoreReaderOptions) {}

  /** False while a recent failure says the store is not worth asking yet. */
  worthAsking(now: number): boolean {
    return now >= this.downUntil;
  }

  /** Asks again at the next read (a write was seen: the store answers). */
  retryNow(): void {
    this.downUntil = 0;
  }

  /** The platform's values and, with `clusterId`, that cluster's; rejects when the store does not answer. */
  async read(clusterId: string | undefined): Promise<{ platform: ScopeValues; cluster: ScopeValues }> {
    const { timeoutMs } = this.options;
    let timer: NodeJS.Timeout | undefined;
    try {
      const rows = await Promise.race([
        readFlagRows(this.options.pool, clusterId),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`flag store did not answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      const platform = new Map<string, SwitchRecord>();
      const cluster = new Map<string, SwitchRecord>();
      for (const row of rows) {
        const record = switchRecordOf(row);
        if (record !== undefined) (row.cluster_id === null ? platform : cluster).set(row.flag_key, record);
      }
      this.reachable();
      return { platform, cluster };
    } catch (err) {
      this.unreachable(err as Error);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private reachable(): void {
    this.downUntil = 0;
    if (!this.outage) return;
    this.outage = false;
    this.options.metrics.storeReachable(true);
    this.options.log.info({}, 'flag store reachable again');
  }

  private unreachable(err: Error): void {
    this.downUntil = Date.now() + this.options.retryAfterMs;
    if (this.outage) return;
    this.outage = true;
    this.options.metrics.storeReachable(false);
    this.options.log.warn(
      { err: { message: err.message } },
      'flag store unreachable; serving last known values (stale)',
    );
  }
}
