/**
 * Requests per second of the flag GET and PUT against a bare Fastify route, measured side by
 * side in one run on this machine: `npm run bench -w services/api-server`.
 * The servers run in a child process so the load generator does not share their event loop.
 * BENCH_DURATION (seconds per target and round, default 5), BENCH_ROUNDS (default 3) and
 * BENCH_CONNECTIONS (default 50) tune it.
 *
 * Each round loads the bare route and then the flag GET, so a neighbour's burst of work on a
 * shared machine lands on one round rather than on one target; the verdict is the median of the
 * rounds' ratios. The servers' CPU time per request (user + system, from the child) is printed
 * too: it moves less than requests per second when other processes compete for the cores.
 */
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { DEFAULT_JWT_AUDIENCE } from '../src/config/index.js';
import type { ServerCpu, ServersMessage } from './servers.js';

const duration = Number(process.env.BENCH_DURATION ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const secret = randomBytes(32).toString('base64url');

const child = fork(fileURLToPath(new URL('./servers.ts', import.meta.url)), [], {
  env: { ...process.env, BENCH_SECRET: secret },
  execArgv: ['--conditions=@gsp/source', '--import', 'tsx'],
});
const messages: ((m: ServersMessage) => void)[] = [];
child.on('message', (m) => messages.shift()?.(m as ServersMessage));
const nextMessage = () => new Promise<ServersMessage>((resolve) => messages.push(resolve));
const started = nextMessage();
const ports = await Promise.race([
  started,
  new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`))),
  ),
]);
if (ports.type !== 'ports') throw new Error(`bench servers sent ${ports.type} before their ports`);

/** The servers' CPU time so far, in microseconds. */
async function serverCpu(): Promise<ServerCpu> {
  const answer = nextMessage();
  child.send('cpu');
  const m = await answer;
  if (m.type !== 'cpu') throw new Error(`bench servers answered ${m.type} to a CPU query`);
  return m;
}

// servers.ts leaves AUTH_JWT_AUDIENCE unset, so the server expects the default audience.
const token = await new SignJWT({})
  .setProtectedHeader({ alg: 'HS256' })
  .setSubject('bench-admin')
  .setAudience(DEFAULT_JWT_AUDIENCE)
  .setExpirationTime('1h')
  .sign(new TextEncoder().encode(secret));
const auth = { authorization: `Bearer ${token}` };

interface Measure {
  rps: number;
  /** Server CPU time (user + system) per request, microseconds. */
  cpuPerRequest: number;
}

const targets = {
  bare: { url: `http://127.0.0.1:${ports.bare}/bare` },
  get: { url: `http://127.0.0.1:${ports.api}/api/v1/platform/feature-flags`, headers: auth },
  put: {
    url: `http://127.0.0.1:${ports.api}/api/v1/platform/feature-flags/cli_access.enabled`,
    method: 'PUT' as const,
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ value: true }),
  },
};

async function run(name: string, opts: autocannon.Options, seconds = duration): Promise<Measure> {
  const before = await serverCpu();
  const result = await autocannon({ connections, duration: seconds, ...opts });
  const after = await serverCpu();
  const failed = result.non2xx + result.errors;
  if (failed > 0) throw new Error(`${name}: ${failed} failed requests`);
  const cpuPerRequest = (after.user + after.system - before.user - before.system) / Math.max(1, result.requests.total);
  return { rps: result.requests.average, cpuPerRequest };
}

const line = (name: string, m: Measure) =>
  `  ${name.padEnd(20)} ${m.rps.toFixed(0).padStart(7)} req/s   ${m.cpuPerRequest.toFixed(1).padStart(5)} µs CPU/req`;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

try {
  console.log(
    `autocannon, ${connections} connections, ${rounds} rounds of ${duration} s per target, Node ${process.version}\n`,
  );
  // JIT warm-up of both servers, not counted.
  await run('warm-up bare', targets.bare, 1);
  await run('warm-up GET', targets.get, 1);
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  const bareRps: number[] = [];
  for (let i = 1; i <= rounds; i++) {
    const bare = await run('bare Fastify GET', targets.bare);
    const get = await run('GET platform flags', targets.get);
    bareRps.push(bare.rps);
    ratios.push(get.rps / bare.rps);
    cpuRatios.push(bare.cpuPerRequest / get.cpuPerRequest);
    console.log(`round ${i}`);
    console.log(line('bare Fastify GET', bare));
    console.log(line('GET platform flags', get));
    console.log(
      `  ratio GET ÷ bare: ${(get.rps / bare.rps).toFixed(3)} (req/s), ` +
        `${(bare.cpuPerRequest / get.cpuPerRequest).toFixed(3)} (CPU/req)`,
    );
  }
  const put = await run('PUT platform flag', targets.put);
  console.log(line('PUT platform flag', put));
  // The PUTs left a value stored by a platform admin: the list now says who to platform admins
  // only, so each GET also asks (from a one-second cache) whether the caller is one. The relay
  // publishes the PUTs' thousands of outbox events first, each invalidating the cache: not counted.
  await run('warm-up GET', targets.get, 3);
  const stored = await run('GET with a stored value', targets.get);
  console.log(line('GET, value stored', stored));
  console.log(
    `\nratio GET ÷ bare, median of ${rounds} rounds: ${median(ratios).toFixed(3)} ` +
      `(req/s; rounds ${ratios.map((r) => r.toFixed(3)).join(', ')})`,
  );
  console.log(`ratio GET ÷ bare by server CPU per request: ${median(cpuRatios).toFixed(3)}`);
  console.log(
    `ratio GET ÷ bare with a platform admin's value stored (median bare): ${(stored.rps / median(bareRps)).toFixed(3)}`,
  );
  console.log(`ratio PUT ÷ bare (median bare): ${(put.rps / median(bareRps)).toFixed(3)}`);
} finally {
  // Wait for the servers to drop their schema before this process ends.
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
