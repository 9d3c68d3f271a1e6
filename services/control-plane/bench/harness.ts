/** What auth.bench.ts and list.bench.ts share: the servers' child process, one measured run, medians. */
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const duration = Number(process.env.BENCH_DURATION ?? 2);
export const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
export const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

export interface Setup {
  kube: string;
  gameServers: number;
  none: number;
  authed: number;
  apiKey: string;
  basic: string;
  bearer: string;
}

export interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
}

export interface Run {
  rps: number;
  p50: number;
  p99: number;
  cpuPerRequest: number;
}

/** The servers run in a child process so the load generator does not share their event loop. */
export async function startServers(): Promise<{
  setup: Setup;
  run: (target: Target, seconds: number) => Promise<Run>;
  stop: () => Promise<void>;
}> {
  const child = fork(fileURLToPath(new URL('./servers.ts', import.meta.url)), [], {
    execArgv: ['--conditions=@gsp/source', '--import', 'tsx'],
  });
  const setup = await new Promise<Setup>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Setup));
    child.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`)));
  });
  const serverCpu = () =>
    new Promise<number>((resolve) => {
      child.once('message', (m) => resolve((m as { cpu: number }).cpu));
      child.send('cpu');
    });
  const run = async (target: Target, seconds: number): Promise<Run> => {
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
    };
  };
  const stop = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return { setup, run, stop };
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

export const line = (name: string, rs: Run[]): string => {
  const rps = median(rs.map((r) => r.rps))
    .toFixed(0)
    .padStart(7);
  const cpu = median(rs.map((r) => r.cpuPerRequest)).toFixed(1);
  return (
    `${name.padEnd(28)} ${rps} req/s   p50 ${median(rs.map((r) => r.p50))} ms   ` +
    `p99 ${median(rs.map((r) => r.p99))} ms   server CPU ${cpu} µs/request`
  );
};
