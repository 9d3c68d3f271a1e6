/**
 * Requests per second of an authenticated viewer route (GET /api/v1/session) with an API key,
 * Basic and an OIDC token, against the same route with AUTH_MODE=none, side by side in one run:
 * `npm run bench -w services/control-plane`. The servers run in a child process so the load
 * generator does not share their event loop. BENCH_DURATION (seconds per target, default 5)
 * and BENCH_CONNECTIONS (default 50) tune it.
 */
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const duration = Number(process.env.BENCH_DURATION ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

interface Setup {
  none: number;
  authed: number;
  apiKey: string;
  basic: string;
  bearer: string;
}

const child = fork(fileURLToPath(new URL('./servers.ts', import.meta.url)), [], { execArgv: ['--conditions=@gsp/source', '--import', 'tsx'] });
const setup = await new Promise<Setup>((resolve, reject) => {
  child.once('message', (m) => resolve(m as Setup));
  child.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`)));
});

async function warm(port: number, headers: Record<string, string>): Promise<void> {
  await autocannon({ url: `http://127.0.0.1:${port}/api/v1/session`, headers, connections, duration: 2 });
}

async function run(name: string, port: number, headers: Record<string, string>): Promise<number> {
  const url = `http://127.0.0.1:${port}/api/v1/session`;
  await autocannon({ url, headers, connections, duration: 1 }); // warm-up: JIT, caches, key set
  const result = await autocannon({ url, headers, connections, duration });
  const failed = result.non2xx + result.errors;
  if (failed > 0) throw new Error(`${name}: ${failed} failed requests`);
  console.log(`${name.padEnd(28)} ${result.requests.average.toFixed(0).padStart(8)} req/s   p50 ${result.latency.p50} ms   p99 ${result.latency.p99} ms`);
  return result.requests.average;
}

try {
  console.log(`GET /api/v1/session, autocannon, ${connections} connections, ${duration} s per target, Node ${process.version}\n`);
  // Every path is warmed up before anything is measured, so no target pays for the JIT of code it shares.
  const all: Record<string, string>[] = [{ 'x-api-key': setup.apiKey }, { authorization: setup.basic }, { authorization: setup.bearer }];
  for (const headers of all) await warm(setup.authed, headers);
  await warm(setup.none, {});
  // The baseline runs first and last; its mean evens out drift on a shared machine.
  const noneBefore = await run('AUTH_MODE=none', setup.none, {});
  // BENCH_ORDER rotates the order of the authenticated targets.
  const targets = {
    apikey: () => run('API key (X-API-Key)', setup.authed, { 'x-api-key': setup.apiKey }),
    basic: () => run('Basic', setup.authed, { authorization: setup.basic }),
    oidc: () => run('OIDC bearer token', setup.authed, { authorization: setup.bearer }),
  };
  const rps: Record<string, number> = {};
  for (const name of (process.env.BENCH_ORDER ?? 'apikey,basic,oidc').split(',') as (keyof typeof targets)[]) rps[name] = await targets[name]();
  const { apikey: apiKey = 0, basic = 0, oidc = 0 } = rps;
  const noneAfter = await run('AUTH_MODE=none (again)', setup.none, {});
  const none = (noneBefore + noneAfter) / 2;
  console.log('');
  for (const [name, rps, target] of [['API key', apiKey, 0.8], ['Basic', basic, 0.7], ['OIDC', oidc, 0.6]] as const) {
    const ratio = rps / none;
    console.log(`ratio ${name.padEnd(8)} / none: ${ratio.toFixed(3)}  (target >= ${target}: ${ratio >= target ? 'met' : 'NOT met'})`);
  }
} finally {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
