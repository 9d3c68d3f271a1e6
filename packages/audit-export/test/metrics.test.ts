import t from 'tap';
import { Registry } from 'prom-client';
import { exportMetrics } from '@gsp/audit-export';

t.test('per-sink figures appear on the registry under their documented names', async (t) => {
  const registry = new Registry();
  const metrics = exportMetrics(registry);
  metrics.queued('webhook', 12);
  metrics.delivered('webhook', 400);
  metrics.retried('webhook', 400);
  metrics.dropped('webhook', 3);
  metrics.poisoned('otlp', 2);
  metrics.oldest('webhook', 1.5);
  // A second exporter in the same service shares the metrics instead of failing to register them.
  exportMetrics(registry).delivered('webhook', 1);
  const text = await registry.metrics();
  for (const line of [
    'gsp_audit_export_queued{sink="webhook"} 12',
    'gsp_audit_export_records_total{sink="webhook",result="delivered"} 401',
    'gsp_audit_export_records_total{sink="webhook",result="retried"} 400',
    'gsp_audit_export_records_total{sink="webhook",result="dropped"} 3',
    'gsp_audit_export_records_total{sink="otlp",result="poisoned"} 2',
    'gsp_audit_export_oldest_age_seconds{sink="webhook"} 1.5',
  ])
    t.ok(text.includes(line), line);
});
