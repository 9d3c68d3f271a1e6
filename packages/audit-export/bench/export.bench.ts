/**
 * `npm run bench -w packages/audit-export`: records per second this process exports to a local
 * receiver (another process, see receiver.ts), through the webhook sink (signed CloudEvents
 * batches) and then the OTLP sink, one batch of AUDIT_EXPORT_BATCH_MAX (400) in flight at a time
 * as a spool or cursor reader sends them. Target: at least 20,000 records/s for each.
 * BENCH_RECORDS (default 200,000) records per sink.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { deliver, otlpSink, webhookSink } from '@gsp/audit-export';
import type { ExportRecord, Sink } from '@gsp/audit-export';

const total = Number(process.env.BENCH_RECORDS ?? 200_000);
const batchMax = 400;
const secret = randomBytes(32).toString('base64url');

const receiver = spawn(
  process.execPath,
  ['--conditions=@gsp/source', '--import', 'tsx', fileURLToPath(new URL('receiver.ts', import.meta.url))],
  { env: { ...process.env, BENCH_SECRET: secret }, stdio: ['ignore', 'pipe', 'inherit'] },
);
const [portLine] = (await once(receiver.stdout, 'data')) as [Buffer];
const url = `http://127.0.0.1:${portLine.toString().trim()}`;

/** Records shaped like the control plane's request records, each with its own id. */
function records(prefix: string): ExportRecord[] {
  const start = Date.now();
  return Array.from({ length: total }, (_, i) => ({
    id: `${prefix}-${i.toString(36)}-${randomBytes(4).toString('hex')}`,
    type: 'io.gsp.control-plane.request',
    time: new Date(start + i).toISOString(),
    data: {
      requestId: `req-${i}`,
      actor: 'ci-deployer',
      actorKind: 'apikey',
      method: 'POST',
      path: `/api/v1/clusters/eu-1/gameservers/gs-${i % 500}`,
      route: '/api/v1/clusters/:cluster/gameservers/:name',
      status: 201,
      durationMs: 3.25,
      cluster: 'eu-1',
      sourceIp: '10.0.3.17',
    },
  }));
}

async function run(sink: Sink): Promise<{ perSecond: number; retries: number; cpuPerSecond: number }> {
  const all = records(sink.name);
  let retries = 0;
  // A warm-up batch opens the connection and lets V8 compile the encoders.
  await deliver(sink, all.slice(0, batchMax), { backoff: { baseMs: 10, maxMs: 100 } });
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < all.length; i += batchMax) {
    const result = await deliver(sink, all.slice(i, i + batchMax), {
      backoff: { baseMs: 10, maxMs: 100 },
      onRetry: () => retries++,
    });
    if (result.outcome !== 'delivered') throw new Error(`${sink.name}: ${result.reason}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  return { perSecond: Math.round(all.length / seconds), retries, cpuPerSecond: Math.round(all.length / cpuSeconds) };
}

const webhook = await run(
  webhookSink({ url: `${url}/audit`, source: '/gsp/control-plane/bench', secret, timeoutMs: 10_000 }),
);
const otlp = await run(
  otlpSink({ url, serviceName: 'gsp-control-plane', serviceInstanceId: 'bench', timeoutMs: 10_000 }),
);
const counts = (await (await fetch(`${url}/count`)).json()) as { webhook: number; otlp: number; refused: number };
receiver.kill();

console.log(`records per sink: ${total} in batches of ${batchMax} (plus one warm-up batch)`);
// Per CPU second of this process: what one exporter costs, whatever the receiver's speed.
console.log(
  `webhook: ${webhook.perSecond} records/s, ${webhook.cpuPerSecond} per CPU second (${webhook.retries} retries); ` +
    `receiver counted ${counts.webhook}, refused ${counts.refused} signatures`,
);
console.log(
  `otlp:    ${otlp.perSecond} records/s, ${otlp.cpuPerSecond} per CPU second (${otlp.retries} retries); ` +
    `receiver counted ${counts.otlp}`,
);
const target = 20_000;
console.log(
  `target ${target} records/s: ${webhook.perSecond >= target && otlp.perSecond >= target ? 'met' : 'MISSED'}`,
);
