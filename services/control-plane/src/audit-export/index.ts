import { createSinks, exportMetrics } from '@gsp/audit-export';
import type { Registry } from 'prom-client';
import type { AuditExportConfig, ExportMetrics } from '@gsp/audit-export';
import { Spool } from '../audit-spool/index.js';
import type { AuditSpoolConfig } from '../config/index.js';
import { kindOf, Shipper } from './shipper.js';
import type { Logger } from '@gsp/service-kit';

export { Shipper, exportRecordOf, kindOf, typeOfKind } from './shipper.js';

/** What the spool needs of an audit line besides its JSON: its time and its action. */
export interface SpoolableLine {
  timestamp: string;
  action?: string | undefined;
  requestId?: string | undefined;
}

/** The audit export of one control-plane process: its spool, and the shipper started once metrics exist. */
export interface AuditExport {
  /**
   * Keeps a record (an audit line) for export; its policy applies when the spool is full. `written`
   * runs once the record is in the OS, or is known lost (counted as dropped): lines appended in the
   * same turn of the event loop are written together.
   */
  spool(line: SpoolableLine, written?: () => void): void;
  /** Whether requests are refused now: `block` and the spool full. */
  blocked(): boolean;
  /**
   * The request `requestId` was refused because the spool is full (`block`): its line goes to
   * standard output only. The spool keeps the records of requests it let in, past its bound if it
   * must, but not those of the refusals, which would grow it for as long as clients retry.
   */
  refused(requestId: string): void;
  start(registry: Registry, log: Logger): void;
  close(): Promise<void>;
}

/**
 * A line's own time in ms, so that the event's time is its timestamp without parsing it back (lines
 * of the same millisecond share it: parsed once); now when it does not parse.
 */
function lineTime(): (timestamp: string) => number {
  let lastTimestamp = '';
  let lastAt = Number.NaN;
  return (timestamp) => {
    if (timestamp !== lastTimestamp) {
      lastTimestamp = timestamp;
      lastAt = Date.parse(timestamp);
    }
    return Number.isNaN(lastAt) ? Date.now() : lastAt;
  };
}

/** Opens the spool when a sink is configured; undefined (stdout only) when none is. */
export async function openAuditExport(
  config: AuditExportConfig,
  spoolConfig: AuditSpoolConfig,
  replicaId: string,
): Promise<AuditExport | undefined> {
  const sinks = createSinks(config, { service: 'control-plane', replica: replicaId });
  if (sinks.length === 0) return undefined;
  const spool = await Spool.open({
    dir: spoolConfig.dir,
    maxBytes: spoolConfig.maxBytes,
    full: spoolConfig.full,
    readers: sinks.map((s) => s.name),
  });
  let shipper: Shipper | undefined;
  let metrics: ExportMetrics | undefined;
  let stopGauges: (() => void) | undefined;
  let log: Logger | undefined;
  /** Records dropped before the metrics existed (none in practice: the spool starts empty or behind). */
  let droppedEarly = 0;
  // Made once, not per record: a record lost to a full spool (`drop`) or a failed write counts for every sink.
  const countDropped = (): void => {
    if (metrics) for (const sink of sinks) metrics.dropped(sink.name, 1);
    else droppedEarly += 1;
  };
  const timeOf = lineTime();
  /** Requests refused by `block` whose line has not come yet. */
  const refusedIds = new Set<string>();
  return {
    // Under `block` a request is refused before it runs while the spool is full, and the spool takes
    // the records of those already running: only `drop` has records refused here.
    spool: (line, written) => {
      if (line.requestId !== undefined && refusedIds.delete(line.requestId)) return written?.();
      const appended = spool.append(line, { at: timeOf(line.timestamp), kind: kindOf(line) });
      if (!appended.ok) {
        countDropped();
        written?.();
      } else
        spool.whenWritten((error) => {
          if (error) countDropped();
          written?.();
        });
    },
    blocked: () => spoolConfig.full === 'block' && spool.isFull,
    refused: (requestId) => {
      refusedIds.add(requestId);
    },
    start(registry, logger) {
      log = logger;
      metrics = exportMetrics(registry);
      for (const sink of sinks) metrics.dropped(sink.name, droppedEarly);
      const started = new Shipper({
        spool,
        sinks,
        batchMax: config.batchMax,
        backoff: config.backoff,
        metrics,
        log: logger,
      });
      stopGauges = metrics.backlog(() => started.backlog());
      shipper = started;
      shipper.start();
    },
    async close() {
      if (shipper && spoolConfig.drainMs > 0 && !(await shipper.drain(spoolConfig.drainMs)))
        log?.warn(
          { backlog: Object.fromEntries(sinks.map((s) => [s.name, spool.backlog(s.name).records])) },
          'stopping with audit records not yet exported (AUDIT_SPOOL_DRAIN passed); ' +
            'they stay in the spool for the next start',
        );
      await shipper?.stop();
      stopGauges?.();
      await spool.close();
    },
  };
}
