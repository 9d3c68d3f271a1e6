/** The servers under test for flags.bench.ts, in their own process: the API server and a bare route. */
import Fastify from 'fastify';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();
await admin.query(`CREATE SCHEMA ${schema}`);
const url = new URL(databaseUrl);
url.searchParams.set('options', `-c search_path=${schema}`);

const app = await buildApp(
  loadConfig({
    DATABASE_URL: url.toString(),
    AUTH_JWT_SECRET: process.env.BENCH_SECRET,
    PLATFORM_ADMINS: 'bench-admin',
  }),
  false,
);
await app.listen({ port: 0, host: '127.0.0.1' });
const bare = Fastify();
bare.get('/bare', async () => ({ hello: 'world' }));
await bare.listen({ port: 0, host: '127.0.0.1' });

process.once('SIGTERM', async () => {
  try {
    await app.close();
    await bare.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
    process.exit(0);
  } catch (err) {
    console.error('bench servers: cleanup failed', err);
    process.exit(1);
  }
});
/** What this process tells flags.bench.ts: its ports once listening, then its CPU time when asked. */
export type ServersMessage = { type: 'ports'; api: number; bare: number } | ServerCpu;
/** `process.cpuUsage()`: microseconds of user and system CPU time since this process started. */
export type ServerCpu = { type: 'cpu'; user: number; system: number };

const send = (m: ServersMessage) => process.send?.(m);
process.on('message', (m) => {
  if (m === 'cpu') send({ type: 'cpu', ...process.cpuUsage() });
});
send({
  type: 'ports',
  api: (app.server.address() as AddressInfo).port,
  bare: (bare.server.address() as AddressInfo).port,
});
