/**
 * Fan-out of `GET /api/v1/events`: BENCH_STREAMS streams (default 500) held open over real HTTP,
 * split over two API-server replicas on one schema and one Redis prefix, and BENCH_WRITES platform
 * flag writes (default 50) made one at a time, alternating replicas. Prints the latency from a
 * write to its event at each stream (p50, p99, max) and the memory each open stream costs its
 * server (RSS and heap growth after GC, divided by the streams it holds).
 * `npm run bench -w services/api-server`; needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL).
 *
 * The replicas run in child processes (this file, with the argument `serve`), so the clients do
 * not share their event loop; the clients share one process, whose own delay counts in the figures.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SignJWT } from 'jose';
import { buildApp } from '../src/app.js';
import { DEFAULT_JWT_AUDIENCE, loadConfig } from '../src/config/index.js';

const ADMIN = 'bench-admin';

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
}
type ServerMessage = { type: 'port'; port: number } | ({ type: 'memory' } & Memory);

/** One replica: listens, reports its port, and its memory after a GC when asked. */
async function serve(): Promise<void> {
  const app = await buildApp(
    loadConfig({
      DATABASE_URL: process.env.BENCH_DATABASE_URL,
      AUTH_JWT_SECRET: process.env.BENCH_SECRET,
      PLATFORM_ADMINS: ADMIN,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: process.env.BENCH_REDIS_PREFIX,
    }),
    false,
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const send = (m: ServerMessage) => process.send?.(m);
  process.on('message', (m) => {
    if (m !== 'memory') return;
    global.gc?.();
    const { rss, heapUsed, external } = process.memoryUsage();
    send({ type: 'memory', rss, heapUsed, external });
  });
  process.once('SIGTERM', () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
  send({ type: 'port', port: (app.server.address() as AddressInfo).port });
}

interface Replica {
  child: ChildProcess;
  port: number;
  memory(): Promise<Memory>;
}

async function startReplica(env: Record<string, string>): Promise<Replica> {
  const child = fork(fileURLToPath(import.meta.url), ['serve'], {
    env: { ...process.env, ...env },
    execArgv: ['--expose-gc', '--conditions=@gsp/source', '--import', 'tsx'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`replica exited with ${code}`)));
  });
  const memory = () =>
    new Promise<Memory>((resolve) => {
      const onMessage = (m: unknown) => {
        if ((m as ServerMessage).type !== 'memory') return;
        child.off('message', onMessage);
        resolve(m as Memory);
      };
      child.on('message', onMessage);
      child.send('memory');
    });
  return { child, port, memory };
}

/** A client holding one stream; records when each event id arrived. */
class Stream {
  readonly arrived = new Map<string, number>();
  opened = false;
  private partial = '';

  constructor(port: number, authorization: string) {
    const req = request({ port, host: '127.0.0.1', path: '/api/v1/events', headers: { authorization }, agent: false });
    req.on('response', (res) => {
      if (res.statusCode !== 200) throw new Error(`events: ${res.statusCode}`);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => this.read(chunk));
    });
    req.on('error', (err) => console.error('stream error', err.message));
    req.end();
    this.close = () => req.destroy();
  }

  readonly close: () => void;

  private read(chunk: string): void {
    const now = performance.now();
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop()!;
    for (const line of lines) {
      if (line.startsWith('id: ')) this.arrived.set(line.slice(4), now);
      else if (line === ': gsp events') this.opened = true;
    }
  }
}

const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function waitFor(what: string, check: () => boolean, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

async function main(): Promise<void> {
  const streamCount = Number(process.env.BENCH_STREAMS ?? 500);
  const writes = Number(process.env.BENCH_WRITES ?? 50);
  const secret = randomBytes(32).toString('base64url');
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const env = {
    BENCH_DATABASE_URL: url.toString(),
    BENCH_SECRET: secret,
    BENCH_REDIS_PREFIX: `bench${randomBytes(4).toString('hex')}:`,
  };
  const replicas: Replica[] = [];
  const streams: Stream[] = [];
  try {
    // The first one migrates the schema; then the second starts on it.
    replicas.push(await startReplica(env));
    replicas.push(await startReplica(env));

    const bearer = async (subject: string) =>
      `Bearer ${await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(subject)
        .setAudience(DEFAULT_JWT_AUDIENCE)
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode(secret))}`;
    const adminAuth = await bearer(ADMIN);
    const call = async (port: number, method: string, path: string, body?: object): Promise<void> => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { authorization: adminAuth, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    };
    // Platform admins, and members of two tenants: each stream filters for its own caller.
    const subjects = [ADMIN];
    for (const org of ['tenant-a', 'tenant-b'])
      for (let i = 0; i < 5; i++) {
        const subject = `${org}-member-${i}`;
        await call(replicas[0]!.port, 'PUT', `/api/v1/tenants/${org}/members/${subject}`, {
          role: i === 0 ? 'admin' : 'viewer',
        });
        subjects.push(subject);
      }
    const auth = new Map(await Promise.all(subjects.map(async (s) => [s, await bearer(s)] as const)));
    const flag = '/api/v1/platform/feature-flags/cli_access.enabled';

    const openStreams = async (count: number): Promise<Stream[]> => {
      const opened: Stream[] = [];
      for (let i = 0; i < count; i++) {
        const subject = subjects[i % subjects.length]!;
        opened.push(new Stream(replicas[i % replicas.length]!.port, auth.get(subject)!));
        // Open them at a pace the servers' accept queues take.
        if (i % 50 === 49) await waitFor('streams to open', () => opened.every((s) => s.opened), 30_000);
      }
      await waitFor('streams to open', () => opened.every((s) => s.opened), 30_000);
      return opened;
    };
    // Warm up first (code compiled, pools and buffers allocated), so the growth measured is the streams'.
    const warmUp = await openStreams(100);
    await call(replicas[0]!.port, 'PUT', flag, { value: true });
    for (const s of warmUp) s.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = await Promise.all(replicas.map((r) => r.memory()));
    streams.push(...(await openStreams(streamCount)));
    const after = await Promise.all(replicas.map((r) => r.memory()));

    const latencies: number[] = [];
    const writeLatencies: number[] = [];
    const { rows } = await admin.query<{ id: string | null }>(
      `SELECT max(id)::text AS id FROM ${schema}.outbox_events`,
    );
    let lastId = BigInt(rows[0]?.id ?? 0);
    for (let w = 0; w < writes; w++) {
      const sent = performance.now();
      await call(replicas[w % replicas.length]!.port, 'PUT', flag, { value: w % 2 === 0 });
      writeLatencies.push(performance.now() - sent);
      // Writes are one at a time and every stream sees platform flags: this write is the next id.
      const { rows: next } = await admin.query<{ id: string }>(
        `SELECT min(id)::text AS id FROM ${schema}.outbox_events WHERE id > $1`,
        [lastId.toString()],
      );
      const id = next[0]!.id;
      lastId = BigInt(id);
      await waitFor(`event ${id} at every stream`, () => streams.every((s) => s.arrived.has(id)), 10_000);
      for (const s of streams) latencies.push(s.arrived.get(id)! - sent);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    latencies.sort((a, b) => a - b);
    writeLatencies.sort((a, b) => a - b);
    const ms = (v: number) => `${v.toFixed(1)} ms`;
    console.log(
      `events fan-out: ${streamCount} streams over ${replicas.length} replicas, ` +
        `${writes} platform flag writes, Node ${process.version}\n`,
    );
    console.log(
      `write sent -> event at a stream (${latencies.length} receipts): p50 ${ms(quantile(latencies, 0.5))}   ` +
        `p99 ${ms(quantile(latencies, 0.99))}   max ${ms(latencies.at(-1)!)}`,
    );
    console.log(
      `  (the PUT itself, which commits: p50 ${ms(quantile(writeLatencies, 0.5))}, ` +
        `p99 ${ms(quantile(writeLatencies, 0.99))})`,
    );
    replicas.forEach((_, i) => {
      const held = streams.filter((_, j) => j % replicas.length === i).length;
      const per = (key: keyof Memory) => `${((after[i]![key] - before[i]![key]) / held / 1024).toFixed(1)} KiB`;
      const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
      console.log(
        `replica ${i + 1}: ${held} streams, per stream: heap ${per('heapUsed')}, external ${per('external')}, ` +
          `RSS ${per('rss')} (RSS ${mib(before[i]!.rss)} -> ${mib(after[i]!.rss)})`,
      );
    });
  } finally {
    for (const s of streams) s.close();
    await Promise.all(
      replicas.map(
        (r) =>
          new Promise((resolve) => {
            r.child.once('exit', resolve);
            r.child.kill('SIGTERM');
          }),
      ),
    );
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

if (process.argv[2] === 'serve') await serve();
else await main();
