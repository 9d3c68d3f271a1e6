import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '@gsp/service-kit';
import { nodeEntry } from '@gsp/service-kit/testing/entry';

/**
 * The cluster proxy's entry point (found when first started): its sources, through tsx, when the tests run from
 * source; its build when they run from theirs (`@gsp/cluster-proxy/server` resolves by the same conditions).
 */
const serverArgs = (): string[] => nodeEntry(fileURLToPath(import.meta.resolve('@gsp/cluster-proxy/server')));

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** From the signal to the exit; -1 when it exited by itself or did not run. */
  ms: number;
}

/** One cluster-proxy replica process (`PROXY_REPLICA_ID` = `id`), restartable on the same ports. */
export class Replica {
  private child: ChildProcess | undefined;
  private exited: Promise<Exit> | undefined;
  private signalledAt = 0;
  /** Times this replica's process was started. */
  starts = 0;

  constructor(
    readonly id: string,
    readonly port: number,
    readonly tunnelPort: number,
    readonly metricsPort: number,
    private readonly env: Record<string, string>,
    private readonly logDir: string,
    private readonly ca: string,
  ) {}

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Starts the process (its output to `<id>.<start>.log`) and waits until its /readyz answers 200. */
  async start(): Promise<void> {
    if (this.child) throw new Error(`replica ${this.id} already runs`);
    this.starts += 1;
    this.signalledAt = 0;
    const log = createWriteStream(join(this.logDir, `${this.id}.${this.starts}.log`));
    const child = spawn(process.execPath, serverArgs(), {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        ...this.env,
        PROXY_REPLICA_ID: this.id,
        PORT: String(this.port),
        TUNNEL_PORT: String(this.tunnelPort),
        METRICS_PORT: String(this.metricsPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    this.child = child;
    this.exited = new Promise<Exit>((resolve) =>
      child.once('exit', (code, signal) => {
        if (this.child === child) this.child = undefined;
        resolve({ code, signal, ms: this.signalledAt ? Date.now() - this.signalledAt : -1 });
      }),
    );
    await waitUntil(
      async () => {
        if (this.child !== child) throw new Error(`replica ${this.id} exited at start; see ${this.logDir}`);
        return (await this.ready()) ? true : undefined;
      },
      // A loaded 2-core host can take long to start a TypeScript process.
      { what: `replica ${this.id} to be ready`, timeoutMs: 60_000, intervalMs: 50 },
    );
  }

  /** Whether its /readyz answers 200 now. */
  async ready(): Promise<boolean> {
    try {
      const res = await request(`${this.url}/readyz`, { ca: this.ca, timeoutMs: 1000 });
      return res.status === 200;
    } catch {
      return false;
    }
  }

  /** Sends `signal` now (SIGSTOP too); the promise resolves when the process is gone. */
  signal(signal: NodeJS.Signals): Promise<Exit> {
    if (!this.child || !this.exited) throw new Error(`replica ${this.id} does not run`);
    this.signalledAt = Date.now();
    this.child.kill(signal);
    return this.exited;
  }

  /** `signal`, and the exit; resolves at once (code null, ms -1) when the process does not run. */
  stop(signal: NodeJS.Signals): Promise<Exit> {
    if (!this.child) return Promise.resolve({ code: null, signal: null, ms: -1 });
    return this.signal(signal);
  }

  async kill(): Promise<void> {
    if (this.child) await this.signal('SIGKILL');
  }

  /** A metric of this replica's METRICS_PORT (summed over the series whose labels include `labels`), or undefined. */
  async metric(name: string, labels = ''): Promise<number | undefined> {
    const res = await request(`http://127.0.0.1:${this.metricsPort}/metrics`, { timeoutMs: 1000 }).catch(
      () => undefined,
    );
    if (res === undefined) return undefined;
    let sum: number | undefined;
    for (const line of res.body.split('\n')) {
      const m = /^(\w+)(\{[^}]*\})? (\S+)$/.exec(line);
      if (m?.[1] === name && (m[2] ?? '').includes(labels)) sum = (sum ?? 0) + Number(m[3]);
    }
    return sum;
  }
}

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RequestOptions {
  /** The certificate an https URL is trusted by. */
  ca?: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  method?: string;
  /** Default 15 s. */
  timeoutMs?: number;
  agent?: http.Agent | false;
}

/** One request (HTTPS trusting `ca`, or plain HTTP); rejects on a network error or after `timeoutMs`. */
export function request(url: string, options: RequestOptions = {}): Promise<Response> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  return new Promise((resolve, reject) => {
    const req = (url.startsWith('https:') ? https : http).request(url, {
      method: options.method ?? 'GET',
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      agent: options.agent ?? false,
      headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
      timeout: timeoutMs,
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.end();
  });
}
