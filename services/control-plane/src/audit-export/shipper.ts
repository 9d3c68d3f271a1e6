import { ship } from '@gsp/audit-export';
import type { Backlog, BackoffOptions, ExportMetrics, ExportRecord, Sink } from '@gsp/audit-export';
import type { Logger } from '@gsp/service-kit';
import type { Spool, SpooledRecord } from '../audit-spool/index.js';

export interface ShipperOptions {
  spool: Spool;
  sinks: readonly Sink[];
  batchMax: number;
  backoff: BackoffOptions;
  metrics: ExportMetrics;
  log: Logger;
  /** How often drops are logged (at most once per interval). */
  reportIntervalMs?: number;
}

/**
 * The kind of an audit line, spooled with it: the event it names (`console.input`,
 * `console.close`, `snapshot.retention`: a dotted action), or `request` for a request's line (whose
 * `action` is the game-server action run on `.../actions/{action}`, a plain word, when it has one).
 */
export function kindOf(record: { action?: unknown }): string {
  const action = record.action;
  const event = typeof action === 'string' && /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/.test(action);
  return event ? action : 'request';
}

/** The CloudEvents `type` of a kind of line: `io.gsp.control-plane.request`, `io.gsp.control-plane.console.input`... */
export const typeOfKind = (kind: string): string => `io.gsp.control-plane.${kind}`;

let lastMs = Number.NaN;
let lastIso = '';
/** RFC 3339 of `ms`, made once for the records of one millisecond (they come in order). */
function isoOf(ms: number): string {
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/**
 * A spooled line as it leaves, its JSON text sent as it is: its spool id is stable across retries
 * and restarts, its time the line's `timestamp` (spooled as the record's time).
 */
class SpooledExport implements ExportRecord {
  readonly id: string;
  readonly type: string;
  readonly time: string;
  readonly json: string;

  constructor(private readonly spooled: SpooledRecord) {
    this.id = spooled.id;
    this.type = typeOfKind(spooled.kind ?? kindOf(spooled.record));
    this.time = isoOf(spooled.appendedAt);
    this.json = spooled.json;
  }

  /** Parsed only for a sink that needs the fields (OTLP's attributes). */
  get data(): Record<string, unknown> {
    return this.spooled.record;
  }
}

export function exportRecordOf(spooled: SpooledRecord): ExportRecord {
  return new SpooledExport(spooled);
}

/**
 * Ships the audit spool to each sink, each at its own pace from its own acknowledged position:
 * read a batch, deliver it (retrying with backoff while the receiver is down or slow), then
 * acknowledge it, which lets the spool delete what every sink has passed. A restart resumes
 * after the last acknowledgement (a batch delivered but not yet acknowledged goes again). A batch
 * the receiver refuses for good is quarantined under the spool's `poison/` and passed.
 */
export class Shipper {
  private readonly stopping = new AbortController();
  private readonly loops: Promise<void>[] = [];
  private reporter: NodeJS.Timeout | undefined;
  private droppedSeen = 0;

  constructor(private readonly options: ShipperOptions) {}

  start(): void {
    for (const sink of this.options.sinks) this.loops.push(this.run(sink));
    this.report();
    this.reporter = setInterval(() => this.report(), this.options.reportIntervalMs ?? 60_000);
    this.reporter.unref();
  }

  /**
   * Keeps shipping until every sink has taken everything in the spool, or `ms` has passed (the
   * process is stopping: a pod whose spool is an emptyDir loses what is left). True when drained.
   */
  async drain(ms: number): Promise<boolean> {
    const { spool, sinks } = this.options;
    const deadline = Date.now() + ms;
    const drained = () => sinks.every((sink) => spool.backlog(sink.name).records === 0);
    while (!drained()) {
      if (Date.now() >= deadline || this.stopping.signal.aborted) return false;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return true;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    clearInterval(this.reporter);
    await Promise.all(this.loops);
    this.report();
  }

  /**
   * Each sink's backlog as the spool has it now: what the backlog gauges read when scraped (never
   * the figures of the last batch, which a stuck delivery would keep for as long as it retries).
   */
  backlog(): Map<string, Backlog> {
    const { spool, sinks } = this.options;
    return new Map(
      sinks.map((sink) => {
        const { records, oldestMs } = spool.backlog(sink.name);
        return [sink.name, { records, oldestSeconds: (oldestMs ?? 0) / 1000 }];
      }),
    );
  }

  /** A log line for the drops since the last report (they are counted as they happen). */
  report(): void {
    const { spool, log } = this.options;
    const dropped = spool.dropped - this.droppedSeen;
    if (dropped > 0) {
      this.droppedSeen = spool.dropped;
      log.warn(
        { dropped, spoolBytes: spool.bytes },
        'the audit spool is full (AUDIT_SPOOL_FULL=drop): audit records were dropped, not exported',
      );
    }
  }

  private async run(sink: Sink): Promise<void> {
    const { spool, metrics, log } = this.options;
    const { signal } = this.stopping;
    while (!signal.aborted) {
      let batch: SpooledRecord[];
      try {
        batch = await spool.read(sink.name, this.options.batchMax, { wait: true, signal });
      } catch (err) {
        if (signal.aborted) return;
        log.warn({ sink: sink.name, err: { message: (err as Error).message } }, 'the audit spool could not be read');
        await new Promise((resolve) => setTimeout(resolve, 1000).unref());
        continue;
      }
      const last = batch.at(-1);
      if (!last) continue;
      const records = batch.map(exportRecordOf);
      const result = await ship(sink, records, { backoff: this.options.backoff, signal, metrics, log });
      if (result === undefined) return; // stopped while retrying: the batch stays in the spool
      try {
        if (result.outcome === 'poison') await spool.quarantine(sink.name, batch, `${result.status}: ${result.reason}`);
        else await spool.ack(sink.name, last.id);
      } catch (err) {
        // Not acknowledged: the batch is read and sent again (at least once).
        if (signal.aborted) return;
        log.warn(
          { sink: sink.name, err: { message: (err as Error).message } },
          'the audit spool could not record a delivery',
        );
      }
    }
  }
}
