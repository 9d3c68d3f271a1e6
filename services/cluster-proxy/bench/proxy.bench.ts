/**
 * `npm run bench -w services/cluster-proxy`: a GET through proxy and tunnel against the same GET
 * straight to kube-lite, then the kill switch's reaction time over 100 toggles with Redis.
 */
import http from 'node:http';
import https from 'node:https';
import type { Test } from 'tap';
import { bearer, ORG, OPERATOR, redisPrefix, startStack, TEST_REDIS_URL, until } from '../test/stack.js';

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 5000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const TOGGLES = Number(process.env.BENCH_TOGGLES ?? 100);

const teardowns: (() => unknown)[] = [];
const fakeTap = { teardown: (fn: () => unknown) => teardowns.push(fn) } as unknown as Test;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

function get(url: URL, options: https.RequestOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(url, options, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

async function load(url: URL, options: https.RequestOptions): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + DURATION_MS;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < end) {
        const start = performance.now();
        const status = await get(url, options).catch(() => 0);
        if (status !== 200) errors++;
        latencies.push(performance.now() - start);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / (DURATION_MS / 1000), p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

const ms = (n: number) => `${n.toFixed(1)} ms`;

try {
  const prefix = redisPrefix();
  const redis = { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix };
  const stack = await startStack(fakeTap, { apiEnv: { ...redis, LOG_LEVEL: 'silent' }, proxyEnv: { ...redis, SERVICE_CACHE_FLAGS_TTL: '60s' }, backoffMaxMs: 50 });
  const [cluster] = stack.clusters;
  if (!cluster) throw new Error('no cluster');
  await until('the agent to connect', () => (cluster.agent.connected ? true : undefined), 10_000);
  const kubeconfig = await stack.api.app.inject({ url: `/api/v1/tenants/${ORG}/clusters/${cluster.id}/kubeconfig`, headers: await bearer(OPERATOR) });
  const token = /token: "([^"]+)"/.exec(kubeconfig.body)?.[1] ?? '';

  const path = '/api/v1/namespaces/default';
  const proxied = new URL(`${stack.proxyUrl}/clusters/${cluster.id}${path}`);
  const proxyOptions: https.RequestOptions = { ca: stack.ca, agent: new https.Agent({ keepAlive: true, maxSockets: CONNECTIONS, ca: stack.ca }), headers: { authorization: `Bearer ${token}` } };
  const direct = new URL(`${cluster.kube.url}${path}`);
  const directOptions: http.RequestOptions = { agent: new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS }) };

  await load(direct, directOptions);
  const straight = await load(direct, directOptions);
  const through = await load(proxied, proxyOptions);
  console.log(`GET ${path}, ${CONNECTIONS} keep-alive connections, ${DURATION_MS / 1000} s each`);
  console.log('                      req/s      p50        p99     errors');
  console.log(`straight to kube-lite ${straight.rps.toFixed(0).padStart(6)}  ${ms(straight.p50).padStart(9)}  ${ms(straight.p99).padStart(9)}  ${straight.errors}`);
  console.log(`proxy + tunnel        ${through.rps.toFixed(0).padStart(6)}  ${ms(through.p50).padStart(9)}  ${ms(through.p99).padStart(9)}  ${through.errors}`);
  console.log(`throughput ratio ${(through.rps / straight.rps).toFixed(2)} (target >= 0.5)`);

  const to410: number[] = [];
  const toClose: number[] = [];
  const probeOptions: https.RequestOptions = { ...proxyOptions, agent: new https.Agent({ keepAlive: true, maxSockets: 1, ca: stack.ca }) };
  for (let i = 0; i < TOGGLES; i++) {
    await until('the agent to reconnect', () => (cluster.agent.connected && stack.proxy.registry.get(cluster.id) ? true : undefined), 10_000, 1);
    await until('the proxy to serve', async () => ((await get(proxied, probeOptions).catch(() => 0)) === 200 ? true : undefined), 10_000, 1);
    const tunnel = stack.proxy.registry.get(cluster.id)!;
    let closedAt: number | undefined;
    const watchClose = (async () => {
      await until('the tunnel to close', () => (tunnel.closed ? true : undefined), 10_000, 0);
      closedAt = performance.now();
    })();
    await stack.setSwitch(false);
    const t0 = performance.now();
    await until('the first 410', async () => ((await get(proxied, probeOptions).catch(() => 0)) === 410 ? true : undefined), 10_000, 0);
    to410.push(performance.now() - t0);
    await watchClose;
    toClose.push(Math.max(0, (closedAt ?? performance.now()) - t0));
    await stack.setSwitch(true);
  }
  to410.sort((a, b) => a - b);
  toClose.sort((a, b) => a - b);
  console.log(`\n${TOGGLES} toggles with Redis, measured from the PUT's response`);
  console.log(`first 410:          p50 ${ms(percentile(to410, 50))}  p99 ${ms(percentile(to410, 99))}  (target p99 < 100 ms)`);
  console.log(`live tunnel closed: p50 ${ms(percentile(toClose, 50))}  p99 ${ms(percentile(toClose, 99))}  (target p99 < 500 ms)`);
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
