/**
 * Requests per second of the flag GET and PUT against a bare Fastify route, measured side by
 * side in one run on this machine: `npm run bench -w services/api-server`.
 * The servers run in a child process so the load generator does not share their event loop.
 * BENCH_DURATION (seconds per target, default 5) and BENCH_CONNECTIONS (default 50) tune it.
 */
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { DEFAULT_JWT_AUDIENCE } from '../src/config.js';

const duration = Number(process.env.BENCH_DURATION ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const secret = randomBytes(32).toString('base64url');

interface Ports {
  api: number;
  bare: number;
}

const child = fork(fileURLToPath(new URL('./servers.ts', import.meta.url)), [], {
  env: { ...process.env, BENCH_SECRET: secret },
  execArgv: ['--conditions=@gsp/source', '--import', 'tsx'],
});
const ports = await new Promise<Ports>((resolve, reject) => {
  child.once('message', (m) => resolve(m as Ports));
  child.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`)));
});

// servers.ts leaves AUTH_JWT_AUDIENCE unset, so the server expects the default audience.
const token = await new SignJWT({})
  .setProtectedHeader({ alg: 'HS256' })
  .setSubject('bench-admin')
  .setAudience(DEFAULT_JWT_AUDIENCE)
  .setExpirationTime('1h')
  .sign(new TextEncoder().encode(secret));
const auth = { authorization: `Bearer ${token}` };

async function run(name: string, opts: autocannon.Options): Promise<number> {
  const result = await autocannon({ connections, duration, ...opts });
  const failed = result.non2xx + result.errors;
  if (failed > 0) throw new Error(`${name}: ${failed} failed requests`);
  console.log(
    `${name.padEnd(24)} ${result.requests.average.toFixed(0).padStart(8)} req/s   p50 ${result.latency.p50} ms   p99 ${result.latency.p99} ms`,
  );
  return result.requests.average;
}

try {
  console.log(`autocannon, ${connections} connections, ${duration} s per target, Node ${process.version}\n`);
  const bareRps = await run('bare Fastify GET', { url: `http://127.0.0.1:${ports.bare}/bare` });
  const getRps = await run('GET platform flags', {
    url: `http://127.0.0.1:${ports.api}/api/v1/platform/feature-flags`,
    headers: auth,
  });
  const putRps = await run('PUT platform flag', {
    url: `http://127.0.0.1:${ports.api}/api/v1/platform/feature-flags/cli_access.enabled`,
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ value: true }),
  });
  console.log(`\nratio GET / bare: ${(getRps / bareRps).toFixed(3)}`);
  console.log(`ratio PUT / bare: ${(putRps / bareRps).toFixed(3)}`);
} finally {
  // Wait for the servers to drop their schema before this process ends.
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
