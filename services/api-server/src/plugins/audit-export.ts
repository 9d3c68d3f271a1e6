import fp from 'fastify-plugin';
import { createSinks, exportMetrics } from '@gsp/audit-export';
import type { AuditExportConfig } from '@gsp/audit-export';
import { AuditExporter } from '../audit-export/exporter.js';

export interface AuditExportPluginOptions {
  config: AuditExportConfig;
  platformId: string;
  /** AUDIT_EXPORT_POLL_INTERVAL. */
  pollIntervalMs: number;
}

/**
 * Exports the audit log to the configured sinks (none: nothing runs). Every replica runs an
 * exporter per sink; one at a time exports (see AuditExporter), the others wait to take over.
 */
export default fp<AuditExportPluginOptions>(
  async (app, opts) => {
    // The log is one, whichever replica sends a row: its records are named by the platform, not the
    // replica, so a receiver deduplicates a batch a successor sent again (same source, same ids).
    const sinks = createSinks(opts.config, { service: 'api-server', replica: opts.platformId });
    if (sinks.length === 0) return;
    const metrics = exportMetrics(app.metrics.registry);
    const exporter = new AuditExporter({
      pool: app.pg,
      sinks,
      batchMax: opts.config.batchMax,
      backoff: opts.config.backoff,
      metrics,
      log: app.log,
      pollIntervalMs: opts.pollIntervalMs,
    });
    const stopGauges = metrics.backlog(() => exporter.backlog());
    app.addHook('onReady', () => exporter.start());
    app.addHook('onClose', async () => {
      stopGauges();
      await exporter.stop();
    });
  },
  { name: 'audit-export', dependencies: ['db', 'metrics'] },
);
