/**
 * The platform as separate processes for the proxy benchmark, each started the way
 * production starts it (its own `src/server.ts`, configured by environment only).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'undici';

const root = fileURLToPath(new URL('../../../', import.meta.url));

export interface Service {
  name: string;
  child: ChildProcess;
  /** User + system CPU time of the process so far, in microseconds (from /proc). */
  cpuMicros(): number;
  /** Of that, the time in the kernel (system calls, the loopback's TCP stack), in microseconds. */
  systemMicros(): number;
  /** The last few KiB the process printed. */
  output(): string;
  stop(): Promise<void>;
}

const TICK_MICROS = 1e6 / 100; // USER_HZ is 100 on Linux.

/**
 * Services run as production runs them: the JavaScript `tsc -b` emitted (`npm run bench` builds
 * first), so the figures do not include tsx's helpers (it wraps every function created at run
 * time in a naming call). BENCH_FROM=src runs the TypeScript sources through tsx instead.
 */
const fromSource = process.env.BENCH_FROM === 'src';

/** `services/x/src/server.ts` as tsc emits it: `services/x/dist/src/server.js`. */
const emitted = (entry: string): string => entry.replace(/^((?:services|packages)\/[^/]+)\/(.*)\.ts$/, '$1/dist/$2.js');

/**
 * Starts `entry` (a TypeScript path below the repository root) with `env`; its output is kept for a
 * failure report. `nodeArgs` go to node before the program (e.g. `--expose-gc`).
 */
export function startService(
  name: string,
  entry: string,
  env: Record<string, string>,
  args: string[] = [],
  nodeArgs: string[] = [],
): Service {
  // BENCH_CPU_PROF=<dir> writes V8 CPU profiles of every service into <dir>/<name>/ when it stops
  // (one per thread: the main thread's is the largest).
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}/${name}`]
    : [];
  const program = fromSource
    ? ['--conditions=@gsp/source', '--import', 'tsx', `${root}${entry}`]
    : [`${root}${emitted(entry)}`];
  const child = spawn(process.execPath, [...profile, ...nodeArgs, ...program, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', (code, signal) => {
    if (!stopping) console.error(`[${name}] exited early (${signal ?? code}):\n${output}`);
  });
  let stopping = false;
  /** User and system CPU time so far, in microseconds; zeros once the process has exited. */
  const times = (): [number, number] => {
    // /proc/<pid>/stat: the 14th and 15th fields (after the parenthesised command) are utime and stime.
    if (child.exitCode !== null || child.signalCode !== null) return [0, 0];
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [Number(fields[11]) * TICK_MICROS, Number(fields[12]) * TICK_MICROS];
  };
  return {
    name,
    child,
    cpuMicros() {
      const [user, system] = times();
      return user + system;
    },
    systemMicros: () => times()[1],
    output: () => output,
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface Answer {
  status: number;
  body: string;
}

/** One request; HTTPS without certificate checks (every server here is the bench's own). */
export function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = (target.protocol === 'https:' ? https : http).request(
      target,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        rejectUnauthorized: false,
        ...(options.agent ? { agent: options.agent } : {}),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Polls `check` until it returns a value; fails after `deadlineMs`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  deadlineMs = 60_000,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await Promise.resolve(check()).catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface Weight {
  rss: number;
  heapUsed: number;
}

/**
 * Weighs a service started with `--inspect-port=127.0.0.1:<inspectPort>`: SIGUSR1 opens its
 * inspector (Node's own signal for that), a full garbage collection runs, and the process reports
 * its `process.memoryUsage()`. The heap is then the live objects only, not whatever garbage the
 * last collection left.
 */
export async function weigh(service: Service, inspectPort: number): Promise<Weight> {
  service.child.kill('SIGUSR1');
  const target = await until(`the inspector of ${service.name}`, async () => {
    const list = JSON.parse((await request(`http://127.0.0.1:${inspectPort}/json/list`)).body) as {
      webSocketDebuggerUrl?: string;
    }[];
    return list[0]?.webSocketDebuggerUrl;
  });
  const socket = new WebSocket(target);
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error(`the inspector of ${service.name} refused the connection`));
  });
  const pending = new Map<number, (result: unknown) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  };
  let id = 0;
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      pending.set(++id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    await call('HeapProfiler.collectGarbage');
    const answer = (await call('Runtime.evaluate', {
      expression: 'JSON.stringify(process.memoryUsage())',
      returnByValue: true,
    })) as { result: { value: string } };
    const usage = JSON.parse(answer.result.value) as NodeJS.MemoryUsage;
    return { rss: usage.rss, heapUsed: usage.heapUsed };
  } finally {
    socket.close();
  }
}
