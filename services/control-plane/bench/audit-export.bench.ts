/**
 * The audit export's cost on the request path and its throughput, in one run:
 * `node --conditions=@gsp/source --import tsx bench/audit-export.bench.ts` (part of `npm run bench`).
 *
 * The auth bench's API-key target (GET /api/v1/session with X-API-Key) on two control planes alike
 * but for the export: `off` (standard output only) and `on` (a webhook sink, signed, to a receiver
 * in a third process that answers 200 at once). Rounds alternate (off, on, off, ...) and the ratio
 * is the median over rounds of `on` against the mean of the `off` runs around it (target >= 0.95).
 * After each `on` round the bench waits until the receiver has every record of it, and prints how
 * long that took past the round's end (the export's lag), so that an export that falls behind
 * cannot pass for a cheap one. Then the export's own pace: the receiver answers 503 through one
 * more `on` round, the spool grows by that round's records (its bytes per record), and the
 * receiver's records per second are measured while the backlog drains, in batches of 400, and
 * per CPU second of the control plane's process (what the export costs, whatever else runs).
 * BENCH_DURATION (seconds per run, default 2), BENCH_ROUNDS (default 7), BENCH_CONNECTIONS (50).
 */
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connections, duration, line, median, rounds } from './harness.js';
import type { Run, Target } from './harness.js';

interface Count {
  records: number;
  batches: number;
  refused: number;
  firstAt?: number;
  lastAt?: number;
  firstBatch: number;
}

const execArgv = ['--conditions=@gsp/source', '--import', 'tsx'];
const secret = randomBytes(32).toString('base64url');
const spoolDir = await mkdtemp(join(tmpdir(), 'cp-audit-export-bench-'));

/** Sends `message` to `child` and gives its next answer that has `key`. */
function ask<T>(child: ChildProcess, message: string, key: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      if (m === null || typeof m !== 'object' || !Object.hasOwn(m, key)) return;
      child.off('message', onMessage);
      resolve(m as T);
    };
    child.on('message', onMessage);
    if (message !== '') child.send(message);
  });
}

const receiver = fork(fileURLToPath(new URL('./audit-receiver.ts', import.meta.url)), [], {
  execArgv,
  env: { ...process.env, BENCH_WEBHOOK_SECRET: secret },
});
const { port: receiverPort } = await ask<{ port: number }>(receiver, '', 'port');
const servers = fork(fileURLToPath(new URL('./audit-export-servers.ts', import.meta.url)), [], {
  execArgv,
  env: {
    ...process.env,
    BENCH_WEBHOOK_URL: `http://127.0.0.1:${receiverPort}/audit`,
    BENCH_WEBHOOK_SECRET: secret,
    BENCH_SPOOL_DIR: spoolDir,
  },
});
const setup = await ask<{ off: number; on: number; apiKey: string }>(servers, '', 'apiKey');
const count = () => ask<Count>(receiver, 'count', 'records');
const serverCpu = async () => (await ask<{ cpu: number }>(servers, 'cpu', 'cpu')).cpu;

async function run(target: Target, seconds: number): Promise<Run & { requests: number }> {
  const before = await serverCpu();
  const result = await autocannon({ url: target.url, headers: target.headers, connections, duration: seconds });
  const cpu = (await serverCpu()) - before;
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) throw new Error(`${target.name}: ${failed} failed requests`);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuPerRequest: cpu / result.requests.total,
    requests: result.requests.total,
  };
}

/** Waits until the receiver has `records` in all; gives how long that took. */
async function delivered(records: number, timeoutMs = 120_000): Promise<{ ms: number; count: Count }> {
  const started = performance.now();
  for (;;) {
    const c = await count();
    if (c.records >= records) return { ms: performance.now() - started, count: c };
    if (performance.now() - started > timeoutMs)
      throw new Error(`the receiver has ${c.records} of ${records} records after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const session = (port: number) => `http://127.0.0.1:${port}/api/v1/session`;
const headers = { 'x-api-key': setup.apiKey };
const off: Target = { name: 'export off', url: session(setup.off), headers };
const on: Target = { name: 'export on (webhook)', url: session(setup.on), headers };

try {
  console.log(
    `GET /api/v1/session with an API key: autocannon, ${connections} connections, ` +
      `${rounds} alternating rounds of ${duration} s per target; Node ${process.version}\n`,
  );
  // Both paths warmed up before anything is measured; the spool's records of the warm-up are
  // delivered first, so the count below starts from them.
  await run(off, 2);
  let sent = (await run(on, 2)).requests;
  await delivered(sent);

  const offRuns: Run[] = [await run(off, duration)];
  const onRuns: Run[] = [];
  const ratios: number[] = [];
  const lags: number[] = [];
  const rates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const batchesBefore = (await count()).batches;
    const r = await run(on, duration);
    sent += r.requests;
    // Records delivered within the round's time, and the wait for the rest.
    const { ms, count: c } = await delivered(sent);
    const after = await run(off, duration);
    const before = offRuns[offRuns.length - 1] as Run;
    offRuns.push(after);
    onRuns.push(r);
    ratios.push(r.rps / ((before.rps + after.rps) / 2));
    lags.push(ms);
    rates.push(r.requests / (duration + ms / 1000));
    console.log(
      `round ${round + 1}: off ${before.rps.toFixed(0)}, on ${r.rps.toFixed(0)}, off ${after.rps.toFixed(0)} req/s; ` +
        `ratio ${(ratios.at(-1) as number).toFixed(3)}; ` +
        `every record at the receiver ${ms.toFixed(0)} ms after the round ` +
        `(${c.records} in all, ${(r.requests / (c.batches - batchesBefore)).toFixed(0)} per batch)`,
    );
  }
  console.log('');
  console.log(line(off.name, offRuns));
  console.log(line(on.name, onRuns));
  const ratio = median(ratios);
  const cpuRatio = median(offRuns.map((r) => r.cpuPerRequest)) / median(onRuns.map((r) => r.cpuPerRequest));
  console.log(
    `ratio on / off: ${ratio.toFixed(3)}  (target >= 0.95: ${ratio >= 0.95 ? 'met' : 'NOT met'})   ` +
      `by server CPU: ${cpuRatio.toFixed(3)}   rounds: ${ratios.map((r) => r.toFixed(2)).join(' ')}`,
  );
  console.log(
    `export under load: every record delivered within ${median(lags).toFixed(0)} ms of its round's end ` +
      `(median; max ${Math.max(...lags).toFixed(0)} ms), ${median(rates).toFixed(0)} records/s end to end`,
  );

  // The export's own pace: a backlog spooled while the receiver is down, then drained.
  receiver.send('down');
  const spoolBefore = (await ask<{ spool: number }>(servers, 'spool', 'spool')).spool;
  const backlog = (await run(on, Math.max(duration, 4))).requests;
  const spoolAfter = (await ask<{ spool: number }>(servers, 'spool', 'spool')).spool;
  sent += backlog;
  const cpuBefore = await serverCpu();
  receiver.send('up');
  const { count: drained } = await delivered(sent);
  const cpuSeconds = ((await serverCpu()) - cpuBefore) / 1e6;
  const seconds = ((drained.lastAt as number) - (drained.firstAt as number)) / 1000;
  // The first batch's records arrived at firstAt: the rate counts those after it.
  const perSecond = (backlog - drained.firstBatch) / seconds;
  console.log(
    `spool: ${((spoolAfter - spoolBefore) / backlog).toFixed(0)} bytes per record ` +
      `(${backlog} records spooled while the receiver was down)`,
  );
  console.log(
    `export of that backlog: ${perSecond.toFixed(0)} records/s delivered (batches of 400, signed), ` +
      `target >= 20000: ${perSecond >= 20_000 ? 'met' : 'NOT met'}; ` +
      `${(backlog / cpuSeconds).toFixed(0)} per CPU second of the control plane; ` +
      `signatures refused: ${drained.refused}`,
  );
} finally {
  const stopped = Promise.all(
    [servers, receiver].map((child) => new Promise((resolve) => child.once('exit', resolve))),
  );
  servers.kill('SIGTERM');
  receiver.kill('SIGTERM');
  await stopped;
  await rm(spoolDir, { recursive: true, force: true });
}
