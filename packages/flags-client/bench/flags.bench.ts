/**
 * `npm run bench -w packages/flags-client`:
 *  1. cached evaluations per second of `cliAccess` (target: at least 1,000,000/s);
 *  2. write-to-observed latency through the real path over 200 toggles: HTTP PUT to an API
 *     server process -> commit -> NOTIFY -> outbox relay -> Redis -> this client's cache drop ->
 *     the next evaluation reads the new value (target p99 under 50 ms).
 * Needs PostgreSQL (DATABASE_URL, default the machine's) and Redis (REDIS_URL).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SignJWT } from 'jose';
import { RedisEventBus } from '@gsp/events';
import { createFlagsClient } from '@gsp/flags-client';

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const toggles = Number(process.env.BENCH_TOGGLES ?? 200);
const evaluations = Number(process.env.BENCH_EVALUATIONS ?? 5_000_000);
const secret = randomBytes(32).toString('base64url');
// Set on the server too, so an AUTH_JWT_AUDIENCE in the caller's environment cannot break the run.
const audience = 'gsp-bench';
const schema = `bench_${randomBytes(4).toString('hex')}`;
const prefix = `${schema}:`;

const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();
await admin.query(`CREATE SCHEMA ${schema}`);
const url = new URL(databaseUrl);
url.searchParams.set('options', `-c search_path=${schema}`);

const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as AddressInfo;
    probe.close(() => resolve(port));
  });
});
const apiUrl = `http://127.0.0.1:${port}`;
const server = spawn(
  process.execPath,
  [
    '--conditions=@gsp/source',
    '--import',
    'tsx',
    fileURLToPath(new URL('../../../services/api-server/src/server.ts', import.meta.url)),
  ],
  {
    env: {
      ...process.env,
      DATABASE_URL: url.toString(),
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: prefix,
      AUTH_JWT_SECRET: secret,
      AUTH_JWT_AUDIENCE: audience,
      PLATFORM_ADMINS: 'bench',
      PORT: String(port),
      METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  },
);
// Whatever happens below, the API server does not outlive the benchmark.
process.on('exit', () => server.kill('SIGKILL'));
const deadline = Date.now() + 60_000;
for (;;) {
  const ready = await fetch(`${apiUrl}/readyz`).then(
    (r) => r.ok,
    () => false,
  );
  if (ready) break;
  if (Date.now() > deadline || server.exitCode !== null) throw new Error('api-server did not become ready');
  await new Promise((r) => setTimeout(r, 100));
}

const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
const bus = new RedisEventBus({ url: redisUrl, prefix });
const client = createFlagsClient({ pool, bus, ttlMs: 60_000, env: {} });
await bus.ready();
const token = await new SignJWT({})
  .setProtectedHeader({ alg: 'HS256' })
  .setSubject('bench')
  .setAudience(audience)
  .setExpirationTime('1h')
  .sign(new TextEncoder().encode(secret));

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

try {
  // 1. cached evaluations
  await client.cliAccess({});
  for (let i = 0; i < 100_000; i++) await client.cliAccess({});
  const started = performance.now();
  for (let i = 0; i < evaluations; i++) await client.cliAccess({});
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `cached evaluations: ${(evaluations / seconds).toFixed(0)} /s (${evaluations} in ${seconds.toFixed(2)} s)`,
  );

  // 2. propagation through Redis
  const fromSent: number[] = [];
  const fromAnswered: number[] = [];
  let value = true;
  for (let i = 0; i < toggles; i++) {
    value = !value;
    const sent = performance.now();
    const res = await fetch(`${apiUrl}/api/v1/platform/feature-flags/cli_access.enabled`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ value }),
    });
    const answered = performance.now();
    if (res.status !== 200) throw new Error(`PUT answered ${res.status}`);
    await res.arrayBuffer();
    for (;;) {
      if ((await client.cliAccess({})).value === value) break;
      await new Promise((r) => setImmediate(r));
    }
    const seen = performance.now();
    fromSent.push(seen - sent);
    fromAnswered.push(Math.max(0, seen - answered));
  }
  fromSent.sort((a, b) => a - b);
  fromAnswered.sort((a, b) => a - b);
  const spread = (ms: number[]): string =>
    `p50 ${pct(ms, 50).toFixed(1)} ms, p99 ${pct(ms, 99).toFixed(1)} ms, max ${ms.at(-1)!.toFixed(1)} ms`;
  console.log(`propagation over ${toggles} toggles, PUT answered -> observed: ${spread(fromAnswered)}`);
  console.log(`propagation over ${toggles} toggles, PUT sent -> observed:     ${spread(fromSent)}`);
} finally {
  await client.close();
  await bus.close();
  await pool.end();
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
}
