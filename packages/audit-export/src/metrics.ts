import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

/** What waits for one sink: records not yet delivered, and how long ago the oldest was written (0 when none). */
export interface Backlog {
  records: number;
  oldestSeconds: number;
}

/**
 * Each sink's backlog as it is now, read from where the records wait (a spool, a table's cursor):
 * what the backlog gauges show at each scrape.
 */
export type BacklogSource = () => ReadonlyMap<string, Backlog> | Promise<ReadonlyMap<string, Backlog>>;

/** Per-sink metrics on a prom-client registry. */
export interface ExportMetrics {
  /** counter gsp_audit_export_records_total{sink,result="delivered"} */
  delivered(sink: string, n: number): void;
  /** ... result="retried": the records of a batch sent again. */
  retried(sink: string, n: number): void;
  /** ... result="dropped": records the spool's `drop` policy let go, or a failed spool write lost. */
  dropped(sink: string, n: number): void;
  /** ... result="poisoned": records of a batch the receiver refused for good. */
  poisoned(sink: string, n: number): void;
  /**
   * gauges gsp_audit_export_queued{sink} and gsp_audit_export_oldest_age_seconds{sink}, read from
   * `source` when the registry is scraped, so that they tell the backlog of that moment, also while
   * a delivery is stuck. Returns the function that stops reading it.
   */
  backlog(source: BacklogSource): () => void;
}

/** The existing metric of that name on `registry` (two exporters in one service share it), else a new one. */
function once<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

/** The backlog sources of each registry: both gauges read them all. */
const sourcesOf = new WeakMap<Registry, Set<BacklogSource>>();

/**
 * Reads every source once for the two gauges of one scrape (prom-client collects them together):
 * a source that fails leaves the gauges as they were.
 */
function backlogReader(sources: ReadonlySet<BacklogSource>): () => Promise<Map<string, Backlog>> {
  let reading: Promise<Map<string, Backlog>> | undefined;
  async function read(): Promise<Map<string, Backlog>> {
    const all = new Map<string, Backlog>();
    for (const source of sources) {
      try {
        for (const [sink, backlog] of await source()) all.set(sink, backlog);
      } catch {
        // Not readable now (the database is away): the last figures stay.
      }
    }
    return all;
  }
  return () => {
    reading ??= read().finally(() => (reading = undefined));
    return reading;
  };
}

export function exportMetrics(registry: Registry): ExportMetrics {
  const registers = [registry];
  let sources = sourcesOf.get(registry);
  if (sources === undefined) sourcesOf.set(registry, (sources = new Set()));
  const read = backlogReader(sources);
  once(
    registry,
    'gsp_audit_export_queued',
    () =>
      new Gauge({
        name: 'gsp_audit_export_queued',
        help: 'Audit records waiting to be delivered to the sink (read when scraped)',
        labelNames: ['sink'],
        registers,
        async collect() {
          for (const [sink, backlog] of await read()) this.set({ sink }, backlog.records);
        },
      }),
  );
  const records = once(
    registry,
    'gsp_audit_export_records_total',
    () =>
      new Counter({
        name: 'gsp_audit_export_records_total',
        help:
          'Audit records by sink and result: delivered, retried (sent again in a failed batch), ' +
          'dropped (the drop policy of a full spool, or a failed spool write), ' +
          'poisoned (refused by the receiver, kept for inspection)',
        labelNames: ['sink', 'result'],
        registers,
      }),
  );
  once(
    registry,
    'gsp_audit_export_oldest_age_seconds',
    () =>
      new Gauge({
        name: 'gsp_audit_export_oldest_age_seconds',
        help: 'Age of the oldest audit record not yet delivered to the sink (0 when none waits; read when scraped)',
        labelNames: ['sink'],
        registers,
        async collect() {
          for (const [sink, backlog] of await read()) this.set({ sink }, backlog.oldestSeconds);
        },
      }),
  );
  const count = (result: string) => (sink: string, n: number) => {
    if (n > 0) records.inc({ sink, result }, n);
  };
  const registered = sources;
  return {
    delivered: count('delivered'),
    retried: count('retried'),
    dropped: count('dropped'),
    poisoned: count('poisoned'),
    backlog(source) {
      registered.add(source);
      return () => registered.delete(source);
    },
  };
}
