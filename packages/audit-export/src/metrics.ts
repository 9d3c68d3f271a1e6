import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

/** Per-sink metrics on a prom-client registry. */
export interface ExportMetrics {
  /** gauge gsp_audit_export_queued{sink}: records written and not yet delivered. */
  queued(sink: string, n: number): void;
  /** counter gsp_audit_export_records_total{sink,result="delivered"} */
  delivered(sink: string, n: number): void;
  /** ... result="retried": the records of a batch sent again. */
  retried(sink: string, n: number): void;
  /** ... result="dropped": records the spool's drop policy let go. */
  dropped(sink: string, n: number): void;
  /** ... result="poisoned": records of a batch the receiver refused for good. */
  poisoned(sink: string, n: number): void;
  /** gauge gsp_audit_export_oldest_age_seconds{sink} */
  oldest(sink: string, ageSeconds: number): void;
}

/** The existing metric of that name on `registry` (two exporters in one service share it), else a new one. */
function once<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export function exportMetrics(registry: Registry): ExportMetrics {
  const registers = [registry];
  const queued = once(
    registry,
    'gsp_audit_export_queued',
    () =>
      new Gauge({
        name: 'gsp_audit_export_queued',
        help: 'Audit records waiting to be delivered to the sink',
        labelNames: ['sink'],
        registers,
      }),
  );
  const records = once(
    registry,
    'gsp_audit_export_records_total',
    () =>
      new Counter({
        name: 'gsp_audit_export_records_total',
        help: 'Audit records by sink and result: delivered, retried (sent again in a failed batch), dropped (the full-spool policy), poisoned (refused by the receiver, kept for inspection)',
        labelNames: ['sink', 'result'],
        registers,
      }),
  );
  const oldest = once(
    registry,
    'gsp_audit_export_oldest_age_seconds',
    () =>
      new Gauge({
        name: 'gsp_audit_export_oldest_age_seconds',
        help: 'Age of the oldest audit record not yet delivered to the sink (0 when none waits)',
        labelNames: ['sink'],
        registers,
      }),
  );
  const count = (result: string) => (sink: string, n: number) => {
    if (n > 0) records.inc({ sink, result }, n);
  };
  return {
    queued: (sink, n) => queued.set({ sink }, n),
    delivered: count('delivered'),
    retried: count('retried'),
    dropped: count('dropped'),
    poisoned: count('poisoned'),
    oldest: (sink, ageSeconds) => oldest.set({ sink }, ageSeconds),
  };
}
