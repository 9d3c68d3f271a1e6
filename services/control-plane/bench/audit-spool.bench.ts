/**
 * The audit spool on the request path: appends per second of a typical audit line (about 350 bytes
 * of JSON), the spool's bytes per record, the latency of one turn's group write (its appends and
 * their one write, p50, p99, max: what a request's response waits for), and how fast a reader takes
 * the records back out (read, then ack per batch of 500):
 * `node --conditions=@gsp/source --import tsx bench/audit-spool.bench.ts` in services/control-plane.
 *
 * Runs against a directory under the OS temporary directory (BENCH_SPOOL_DIR to measure another
 * disk). Each event-loop turn appends BENCH_PER_TURN records (default 36, what a control plane
 * under the auth bench's load wrote per turn) and waits for their write. Appends run with the
 * default flush (fdatasync once a second, off the event loop) and, for comparison, with a flush in
 * every write (syncIntervalMs 0). BENCH_RECORDS (default 200000).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Spool } from '../src/audit-spool/index.js';

const records = Number(process.env.BENCH_RECORDS ?? 200_000);
const base = process.env.BENCH_SPOOL_DIR ?? tmpdir();
const perTurn = Number(process.env.BENCH_PER_TURN ?? 36);

const record = (n: number) => ({
  timestamp: new Date().toISOString(),
  level: 'audit',
  user: 'ops@example.com',
  role: 'operator',
  method: 'POST',
  path: '/api/v1/gameservers/games/arena-17/actions/restart',
  clientIP: '10.0.12.34',
  userAgent: 'gspctl/1.4.2 (linux; amd64)',
  result: 'success',
  status: 202,
  requestId: `req-${n.toString(36).padStart(8, '0')}`,
  authMethod: 'apikey',
  durationMs: 12,
  target: 'games/arena-17',
  action: 'restart',
});

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
}

async function appendRun(name: string, count: number, syncIntervalMs: number | undefined): Promise<void> {
  const dir = await mkdtemp(join(base, 'audit-spool-bench-'));
  try {
    const spool = await Spool.open({
      dir,
      maxBytes: 4 * 1024 ** 3,
      full: 'block',
      readers: ['webhook'],
      syncIntervalMs,
    });
    const recordBytes = Buffer.byteLength(JSON.stringify(record(0)));
    const written = () => new Promise<void>((resolve) => spool.whenWritten(() => resolve()));
    for (let i = 0; i < Math.min(count, 5000); i++) spool.append(record(i), { kind: 'request' });
    await written();
    const startBytes = spool.bytes;
    const turns = Math.ceil(count / perTurn);
    const latencies = new Float64Array(turns);
    const started = process.hrtime.bigint();
    for (let turn = 0, i = 0; turn < turns; turn++) {
      const t0 = process.hrtime.bigint();
      for (let k = 0; k < perTurn && i < count; k++, i++)
        if (!spool.append(record(i), { kind: 'request' }).ok) throw new Error('the spool refused an append');
      await written();
      latencies[turn] = Number(process.hrtime.bigint() - t0) / 1000;
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const perRecord = (spool.bytes - startBytes) / count;
    const slow = latencies.filter((us) => us > 1000).length;
    latencies.sort();
    console.log(
      `${name}: ${Math.round(count / seconds).toLocaleString('en')} appends/s (record building included), ` +
        `${perTurn} per write; ` +
        `a turn's appends and write p50 ${percentile(latencies, 0.5).toFixed(1)} µs, ` +
        `p99 ${percentile(latencies, 0.99).toFixed(1)} µs, ` +
        `max ${(latencies[turns - 1] as number).toFixed(0)} µs, ${slow} of ${turns} over 1 ms; ` +
        `${perRecord.toFixed(0)} spool bytes per record ` +
        `(the record's JSON is ${recordBytes} bytes)`,
    );
    if (syncIntervalMs === undefined) {
      const readStarted = process.hrtime.bigint();
      let read = 0;
      for (;;) {
        const batch = await spool.read('webhook', 500);
        const last = batch.at(-1);
        if (!last) break;
        read += batch.length;
        await spool.ack('webhook', last.id);
      }
      const readSeconds = Number(process.hrtime.bigint() - readStarted) / 1e9;
      console.log(
        `${name}: read and acked ${read.toLocaleString('en')} records in batches of 500: ` +
          `${Math.round(read / readSeconds).toLocaleString('en')} records/s; ${spool.bytes} bytes left on disk`,
      );
    }
    await spool.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

console.log(`audit spool under ${base}; Node ${process.version}\n`);
await appendRun('flush every 1 s (default)', records, undefined);
await appendRun('flush in every write', Math.min(records, 20_000), 0);
