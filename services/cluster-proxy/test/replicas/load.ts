import https from 'node:https';
import { kubectl } from '../stack.js';

/** One request or kubectl call that did not succeed. */
export interface Failure {
  /** When it started, ms since the load began. */
  startedMs: number;
  /** When it ended, ms since the load began. */
  endedMs: number;
  what: string;
}

export interface LoadResult {
  ok: number;
  /** Of `ok`, real kubectl calls. */
  kubectlOk: number;
  failures: Failure[];
  /**
   * Requests sent again once because their kept-alive connection was closed by the server just as
   * they were sent (nothing had been answered): what Go's HTTP client, hence kubectl, does too.
   */
  retried: number;
  /** Milliseconds, per successful raw request. */
  latencies: number[];
  /** When each successful raw request started, ms since the load began (same order as `latencies`). */
  starts: number[];
  /** When the load began (epoch ms). */
  startedAt: number;
}

export interface LoadOptions {
  /** The cluster API URL to GET, e.g. https://lb/clusters/<id>/api/v1/namespaces. */
  url: string;
  ca: string;
  token: string;
  /** Raw HTTPS requests in flight at once over kept-alive connections. */
  concurrency: number;
  /** A kubeconfig for real `kubectl get namespaces` calls, beside the raw requests. */
  kubeconfig?: string;
  /** kubectl processes running at once (default 1). */
  kubectlConcurrency?: number;
  /** Stop after this many raw requests; without it, run until `stop`. */
  total?: number;
  /** Stop after this many kubectl calls; without it, run until `stop` (or, with `total`, none). */
  kubectlTotal?: number;
}

export interface Load {
  /** Resolves when `total` calls are done, or after `stop`. */
  done: Promise<LoadResult>;
  /** Finishes the calls in flight and resolves with the result. */
  stop(): Promise<LoadResult>;
  /** The result so far. */
  readonly result: LoadResult;
}

const RETRYABLE = new Set(['ECONNRESET', 'EPIPE']);

/** GETs `url` once; resolves when the body is read. */
function get(url: string, agent: https.Agent, ca: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, {
      agent,
      ca,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      timeout: 20_000,
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 20 s')));
    req.on('error', (err: NodeJS.ErrnoException) => {
      // Node's advice for a kept-alive socket the server closed under a new request.
      if (req.reusedSocket && err.code !== undefined && RETRYABLE.has(err.code))
        reject(Object.assign(err, { retryable: true }));
      else reject(err);
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.end();
  });
}

/** Keeps `concurrency` GETs (and optionally one real kubectl) going until `total` or `stop`. */
export function startLoad(options: LoadOptions): Load {
  const startedAt = Date.now();
  const result: LoadResult = { ok: 0, kubectlOk: 0, failures: [], retried: 0, latencies: [], starts: [], startedAt };
  const agent = new https.Agent({ keepAlive: true, maxSockets: options.concurrency, ca: options.ca });
  let started = 0;
  let kubectlStarted = 0;
  let stopped = false;
  const more = (): boolean => !stopped && (options.total === undefined || started < options.total);
  const kubectlLimit = options.kubectlTotal ?? (options.total === undefined ? Infinity : 0);
  const moreKubectl = (): boolean => !stopped && kubectlStarted < kubectlLimit;
  const fail = (t0: number, what: string): void => {
    result.failures.push({ startedMs: t0 - startedAt, endedMs: Date.now() - startedAt, what });
  };

  const raw = async (): Promise<void> => {
    while (more()) {
      started++;
      const t0 = Date.now();
      for (let attempt = 0; ; attempt++) {
        try {
          const res = await get(options.url, agent, options.ca, options.token);
          if (res.status === 200 && res.body.includes('"NamespaceList"')) {
            result.ok++;
            result.latencies.push(Date.now() - t0);
            result.starts.push(t0 - startedAt);
          } else fail(t0, `HTTP ${res.status}: ${res.body.slice(0, 300)}`);
          break;
        } catch (err) {
          if ((err as { retryable?: boolean }).retryable && attempt === 0) {
            result.retried++;
            continue;
          }
          fail(t0, `network: ${(err as Error).message}`);
          break;
        }
      }
    }
  };
  const real = async (kubeconfig: string): Promise<void> => {
    while (moreKubectl()) {
      kubectlStarted++;
      const t0 = Date.now();
      const res = await kubectl(kubeconfig, ['get', 'namespaces', '-o', 'name']);
      if (res.code === 0 && res.stdout.includes('namespace/default')) {
        result.ok++;
        result.kubectlOk++;
      } else fail(t0, `kubectl exit ${res.code}: ${res.stderr.trim().slice(0, 300)}`);
    }
  };

  const workers = Array.from({ length: options.concurrency }, raw);
  const kubeconfig = options.kubeconfig;
  if (kubeconfig !== undefined)
    for (let i = 0; i < (options.kubectlConcurrency ?? 1); i++) workers.push(real(kubeconfig));
  const done = Promise.all(workers).then(() => {
    agent.destroy();
    return result;
  });
  return {
    done,
    result,
    stop() {
      stopped = true;
      return done;
    },
  };
}

/** A one-line summary for a test comment. */
export function summary(r: LoadResult): string {
  const sorted = [...r.latencies].sort((a, b) => a - b);
  const slowest = r.latencies
    .map((ms, i) => [ms, r.starts[i] ?? 0] as const)
    .sort((a, b) => b[0] - a[0])
    .slice(0, 3)
    .map(([ms, at]) => `${ms} ms from ${at} ms`)
    .join(', ');
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
  return (
    `${r.ok} ok (${r.kubectlOk} by kubectl), ${r.failures.length} failed, ${r.retried} retried on a closed ` +
    `keep-alive; latency p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${sorted.at(-1) ?? 0} ms ` +
    `over ${Date.now() - r.startedAt} ms; slowest: ${slowest}`
  );
}
