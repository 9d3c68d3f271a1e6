import t from 'tap';
import { Registry } from 'prom-client';
import { exportMetrics } from '@gsp/audit-export';

t.test('per-sink figures appear on the registry under their documented names', async (t) => {
  const registry = new Registry();
  const metrics = exportMetrics(registry);
  metrics.backlog(() => new Map([['webhook', { records: 12, oldestSeconds: 1.5 }]]));
  metrics.delivered('webhook', 400);
  metrics.retried('webhook', 400);
  metrics.dropped('webhook', 3);
  metrics.poisoned('otlp', 2);
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

t.test('the backlog gauges show the backlog at the moment of each scrape, read once per scrape', async (t) => {
  const registry = new Registry();
  let records = 0;
  let reads = 0;
  const stop = exportMetrics(registry).backlog(async () => {
    reads++;
    return new Map([['otlp', { records, oldestSeconds: records / 10 }]]);
  });
  const scrape = async () => await registry.metrics();
  records = 150;
  const first = await scrape();
  t.match(first, 'gsp_audit_export_queued{sink="otlp"} 150');
  t.match(first, 'gsp_audit_export_oldest_age_seconds{sink="otlp"} 15');
  t.equal(reads, 1, 'one read serves both gauges');
  records = 11_841;
  t.match(await scrape(), 'gsp_audit_export_queued{sink="otlp"} 11841', 'the next scrape reads again');
  stop();
  records = 1;
  t.match(await scrape(), 'gsp_audit_export_queued{sink="otlp"} 11841', 'a source stopped is no longer read');
});

t.test('a backlog that cannot be read leaves the last figures, and the scrape still answers', async (t) => {
  const registry = new Registry();
  let fail = false;
  exportMetrics(registry).backlog(() => {
    if (fail) throw new Error('the database is away');
    return new Map([['webhook', { records: 7, oldestSeconds: 2 }]]);
  });
  t.match(await registry.metrics(), 'gsp_audit_export_queued{sink="webhook"} 7');
  fail = true;
  t.match(await registry.metrics(), 'gsp_audit_export_queued{sink="webhook"} 7');
});
