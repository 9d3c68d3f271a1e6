/**
 * `npm run bench -w services/cluster-proxy`
 *
 * 1. Throughput and latency of `GET /api/v1/namespaces/default` through proxy and tunnel,
 *    against the same GET sent straight to the cluster, side by side in one run.
 *    The target: proxy and tunnel at least 0.9 of two bare Node HTTPS hops in a row (the path's
 *    physical shape), as the median of the rounds' ratios, and the proxy's plus the agent's CPU per
 *    request at most 1.1 times the two bare forwarders'.
 * 1c. Three proxy replicas (PROXY_REPLICA_ID bench-1..3, one database and Redis) behind TCP
 *    round-robin balancers (`balancer.ts`, as a Kubernetes Service): the agent dials the tunnel
 *    balancer until it holds a tunnel to each; the GET goes through a kubectl balancer to one
 *    replica and through another to all three, in alternating rounds beside two bare hops.
 * 1d. What an agent connection weighs: BENCH_AGENTS agents in one process (`agents.ts`) each hold a
 *    tunnel to every replica; each replica's RSS and heap before and after, and the agents' own.
 * 2. A BENCH_LIST_MIB list through a tunnel whose agent is BENCH_RTT_MS away (a relay delays
 *    each direction), against the same list through the agent next door.
 * 3. Over BENCH_TOGGLES toggles of the switch with Redis: the time from the PUT's response to
 *    the first 410, and to the end of a `watch` that was running in the tunnel.
 *
 * After 1, the per-request rights check (the cluster still exists, the subject still holds
 * admin or operator) is timed in this process as the proxy runs it, a cache hit, and set beside
 * the CPU the proxied GET cost in the same run.
 *
 * Every component is its own process, started as in production from its `src/server.ts`:
 * kube-lite as the customer cluster (HTTPS, bearer token, as a real API server), the API
 * server, the cluster proxy and a tunnel agent. autocannon generates the load from this
 * process. The straight GET carries the cluster's token over HTTPS, as kubectl would send it
 * to the cluster itself. Runs alternate (straight, one hop, two hops, proxied, straight, ...) and the
 * ratio is the median of each round's pair, so drift on a shared machine cancels out. The CPU each
 * process spent per request (from /proc) shows where the time goes. Two more lines, for
 * reference, send the GET through `forwarder.ts`: one bare Node HTTPS hop with no checks and
 * no tunnel, the least any proxy written in Node costs here, and two of them in a row, the
 * shape of the product's path (a proxy, then an agent in the cluster) with nothing in it.
 *
 * Needs PostgreSQL (DATABASE_URL, default the local test database) and Redis (REDIS_URL).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { SignJWT } from 'jose';
import pg from 'pg';
import { generateSelfSignedCertificate } from '@gsp/service-kit';
import { freePort } from '../test/stack.js';
import { Rights } from '../src/rights.js';
import { recordNative, summarizeNative } from './perf.js';
import { mainProfile, printSummary, summarize } from './profile.js';
import { request, startService, until, weigh } from './processes.js';
import type { Service, Weight } from './processes.js';

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 100);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const TOGGLES = Number(process.env.BENCH_TOGGLES ?? 100);
const LIST_MIB = Number(process.env.BENCH_LIST_MIB ?? 16);
const RTT_MS = Number(process.env.BENCH_RTT_MS ?? 50);
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN = 'bench-admin';
const PATH = '/api/v1/namespaces/default';

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const ms = (n: number) => `${n.toFixed(1)} ms`.padStart(9);
/** A free port for each name. */
const freePorts = async <K extends string>(...names: K[]): Promise<Record<K, number>> =>
  Object.fromEntries(await Promise.all(names.map(async (n) => [n, await freePort()]))) as Record<K, number>;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
/** A gauge of a service's Prometheus text (`/metrics` on its METRICS_PORT). */
const gauge = async (metricsPort: number, name: string): Promise<number> => {
  const text = (await request(`http://127.0.0.1:${metricsPort}/metrics`)).body;
  return Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
};
const dir = mkdtempSync(join(tmpdir(), 'gsp-proxy-bench-'));
const schema = `bench_${randomBytes(5).toString('hex')}`;
const services: Service[] = [];
/** When each line's load ran ([from, to] µs of CLOCK_MONOTONIC), by label: the profiles are read for those windows. */
const loadWindows = new Map<string, { window: [number, number]; requests: number; cpu: Record<string, number> }[]>();
const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);
const admin = new pg.Client({ connectionString: DATABASE_URL });
/** Thrown to stop after the path's figures (BENCH_ONLY_PATH=1); the finally block still stops and profiles. */
const onlyPath = new Error('BENCH_ONLY_PATH');

try {
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const schemaUrl = new URL(DATABASE_URL);
  schemaUrl.searchParams.set('options', `-c search_path=${schema}`);
  const databaseUrl = schemaUrl.toString();
  const redis = { REDIS_URL, REDIS_KEY_PREFIX: `bench:${randomBytes(4).toString('hex')}:` };

  const certificate = generateSelfSignedCertificate('gsp-cluster-proxy');
  writeFileSync(join(dir, 'proxy.crt'), certificate.cert);
  writeFileSync(join(dir, 'proxy.key'), certificate.key, { mode: 0o600 });
  const jwtSecret = randomBytes(32).toString('base64url');
  // Given to the API server below, so the token and the server agree without relying on its default.
  const jwtAudience = 'gsp-bench';
  const kubeToken = randomBytes(24).toString('base64url');
  const [kubePort, apiPort, proxyPort, tunnelPort, agentPort, forwarderPort, outerPort, farAgentPort] =
    await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort(), freePort(), freePort(), freePort()]);
  const { proxyMetricsPort, agentMetricsPort, proxyInspectPort, agentInspectPort } = await freePorts(
    'proxyMetricsPort',
    'agentMetricsPort',
    'proxyInspectPort',
    'agentInspectPort',
  );
  // Each replica and agent can be weighed (`weigh`: SIGUSR1 opens its inspector on this port).
  const inspectable = (port: number) => [`--inspect-port=127.0.0.1:${port}`];
  const kubeUrl = `https://127.0.0.1:${kubePort}`;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const proxyUrl = `https://127.0.0.1:${proxyPort}`;

  const kube = startService('kube-lite', 'packages/kube-lite/src/cli.ts', {}, [
    '--port',
    String(kubePort),
    '--tls',
    '--token',
    kubeToken,
  ]);
  services.push(kube);
  const api = startService('api-server', 'services/api-server/src/server.ts', {
    ...redis,
    PORT: String(apiPort),
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    AUTH_JWT_SECRET: jwtSecret,
    AUTH_JWT_AUDIENCE: jwtAudience,
    PLATFORM_ADMINS: ADMIN,
    PROXY_PUBLIC_URL: proxyUrl,
    PROXY_CA_FILE: join(dir, 'proxy.crt'),
    DATA_DIR: dir,
  });
  services.push(api);
  await until('kube-lite', async () =>
    (await request(`${kubeUrl}/readyz`, { headers: { authorization: `Bearer ${kubeToken}` } })).status === 200
      ? true
      : undefined,
  );
  await until('the API server', async () => ((await request(`${apiUrl}/readyz`)).status === 200 ? true : undefined));

  const adminToken = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(ADMIN)
    .setAudience(jwtAudience)
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(jwtSecret));
  const callApi = async (method: string, path: string, body?: unknown) => {
    const answer = await request(`${apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.body}`);
    return answer.body;
  };
  await callApi('PUT', `/api/v1/tenants/bench/members/${ADMIN}`, { role: 'admin' });
  const cluster = JSON.parse(await callApi('POST', '/api/v1/tenants/bench/clusters', { name: 'bench' })) as {
    id: string;
    agentToken: string;
  };

  // Every replica counts the others from proxy_replicas, renewed every third of PRESENCE_LEASE.
  const startReplica = (
    name: string,
    id: string,
    ports: { port: number; tunnel: number; metrics: number; inspect: number },
  ) =>
    startService(
      name,
      'services/cluster-proxy/src/server.ts',
      {
        ...redis,
        PORT: String(ports.port),
        TUNNEL_PORT: String(ports.tunnel),
        METRICS_PORT: String(ports.metrics),
        HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl,
        API_SERVER_URL: apiUrl,
        TLS_CERT_FILE: join(dir, 'proxy.crt'),
        TLS_KEY_FILE: join(dir, 'proxy.key'),
        SERVICE_CACHE_FLAGS_TTL: '60s',
        PROXY_REPLICA_ID: id,
        PRESENCE_LEASE: '3s',
        DRAIN_GRACE: '1s',
      },
      [],
      inspectable(ports.inspect),
    );
  const proxy = startReplica('cluster-proxy', 'bench-1', {
    port: proxyPort,
    tunnel: tunnelPort,
    metrics: proxyMetricsPort,
    inspect: proxyInspectPort,
  });
  services.push(proxy);
  // Until 1c this agent dials the one replica straight, as the earlier bench did: the target's path.
  const agent = startService(
    'tunnel-agent',
    'services/tunnel-agent/src/server.ts',
    {
      PORT: String(agentPort),
      METRICS_PORT: String(agentMetricsPort),
      HOST: '127.0.0.1',
      PROXY_TUNNEL_URL: `http://127.0.0.1:${tunnelPort}`,
      CLUSTER_ID: cluster.id,
      AGENT_TOKEN: cluster.agentToken,
      KUBE_API_URL: kubeUrl,
      KUBE_TOKEN: kubeToken,
      KUBE_INSECURE_SKIP_TLS_VERIFY: 'true',
      AGENT_BACKOFF_INITIAL: '10ms',
      AGENT_BACKOFF_MAX: '50ms',
    },
    [],
    inspectable(agentInspectPort),
  );
  services.push(agent);
  const forwarder = startService('forwarder', 'services/cluster-proxy/bench/forwarder.ts', {
    FORWARD_PORT: String(forwarderPort),
    FORWARD_TARGET: kubeUrl,
    FORWARD_TOKEN: kubeToken,
    TLS_CERT_FILE: join(dir, 'proxy.crt'),
    TLS_KEY_FILE: join(dir, 'proxy.key'),
  });
  services.push(forwarder);
  // Two bare hops in a row, the shape of the product's path (proxy, then agent) with nothing in them.
  const outer = startService('outer forwarder', 'services/cluster-proxy/bench/forwarder.ts', {
    FORWARD_PORT: String(outerPort),
    FORWARD_TARGET: `https://127.0.0.1:${forwarderPort}`,
    FORWARD_TOKEN: kubeToken,
    TLS_CERT_FILE: join(dir, 'proxy.crt'),
    TLS_KEY_FILE: join(dir, 'proxy.key'),
  });
  services.push(outer);
  await until('the agent to connect', async () =>
    (await request(`http://127.0.0.1:${agentPort}/readyz`)).status === 200 ? true : undefined,
  );
  const agentIdle1 = await weigh(agent, agentInspectPort);

  const kubeconfig = await callApi('GET', `/api/v1/tenants/bench/clusters/${cluster.id}/kubeconfig`);
  const token = /token: "?([^"\s]+)"?/.exec(kubeconfig)?.[1] ?? '';
  const proxied = {
    url: `${proxyUrl}/clusters/${cluster.id}${PATH}`,
    headers: { authorization: `Bearer ${token}` },
    label: 'proxied',
  };
  const straight = { url: `${kubeUrl}${PATH}`, headers: { authorization: `Bearer ${kubeToken}` } };
  const forwarded = { url: `https://127.0.0.1:${forwarderPort}${PATH}`, headers: {} };
  const twoHops = { url: `https://127.0.0.1:${outerPort}${PATH}`, headers: {}, label: 'two hops' };
  await until('the forwarder', async () => ((await request(forwarded.url)).status === 200 ? true : undefined));
  await until('the outer forwarder', async () => ((await request(twoHops.url)).status === 200 ? true : undefined));
  for (const target of [straight, proxied]) {
    const answer = await request(target.url, { headers: target.headers });
    if (answer.status !== 200) throw new Error(`GET ${target.url} answered ${answer.status}: ${answer.body}`);
  }

  // --- 1. Throughput, straight and proxied in alternating rounds.
  interface Run {
    rps: number;
    p50: number;
    p99: number;
    cpu: Record<string, number>;
    /** Of `cpu`, the kernel's share (system time). */
    sys: Record<string, number>;
  }
  const load = async (
    target: { url: string; headers: Record<string, string>; label?: string },
    duration: number,
    /** Requests per second at most (autocannon's overallRate); unbounded by default. */
    overallRate?: number,
  ): Promise<Run> => {
    const before = services.map((s) => s.cpuMicros());
    const sysBefore = services.map((s) => s.systemMicros());
    const from = monotonicMicros();
    const result = await autocannon({
      url: target.url,
      headers: target.headers,
      connections: CONNECTIONS,
      duration: duration / 1000,
      ...(overallRate === undefined ? {} : { overallRate }),
    });
    const window: [number, number] = [from, monotonicMicros()];
    const failed = result.non2xx + result.errors + result.timeouts;
    if (failed > 0) throw new Error(`GET ${target.url}: ${failed} of ${result.requests.total} requests failed`);
    const cpu: Record<string, number> = {};
    const sys: Record<string, number> = {};
    services.forEach((s, i) => {
      cpu[s.name] = (s.cpuMicros() - (before[i] as number)) / result.requests.total;
      sys[s.name] = (s.systemMicros() - (sysBefore[i] as number)) / result.requests.total;
    });
    const windows = loadWindows.get(target.label ?? target.url) ?? [];
    windows.push({ window, requests: result.requests.total, cpu });
    loadWindows.set(target.label ?? target.url, windows);
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpu, sys };
  };
  await load(straight, 2000); // warm-up: JIT, connection pools, caches
  await load(forwarded, 2000);
  await load(twoHops, 2000);
  await load(proxied, 2000);
  loadWindows.clear(); // the profiles are read for the measured rounds only
  const straightRuns: Run[] = [];
  const forwardedRuns: Run[] = [];
  const twoHopRuns: Run[] = [];
  const proxiedRuns: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    straightRuns.push(await load(straight, DURATION_MS));
    forwardedRuns.push(await load(forwarded, DURATION_MS));
    twoHopRuns.push(await load(twoHops, DURATION_MS));
    proxiedRuns.push(await load(proxied, DURATION_MS));
  }
  const summary = (runs: Run[]) => ({
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
  });
  const cpuOf = (runs: Run[], name: string) => median(runs.map((r) => r.cpu[name] ?? 0));
  const s = summary(straightRuns);
  const f = summary(forwardedRuns);
  const f2 = summary(twoHopRuns);
  const p = summary(proxiedRuns);
  const ratioOf = (runs: Run[]) => median(runs.map((r, i) => r.rps / (straightRuns[i] as Run).rps));
  const ratio = ratioOf(proxiedRuns);
  const cpuLine = (runs: Run[], names: string[]) => names.map((n) => `${n} ${cpuOf(runs, n).toFixed(0)} µs`).join(', ');
  const row = (label: string, x: ReturnType<typeof summary>, cpu: string) =>
    console.log(`${label.padEnd(34)} ${x.rps.toFixed(0).padStart(6)}  ${ms(x.p50)}  ${ms(x.p99)}   ${cpu}`);
  console.log(
    `GET ${PATH}: autocannon, ${CONNECTIONS} connections, ` +
      `${ROUNDS} alternating rounds of ${DURATION_MS / 1000} s (medians); Node ${process.version}`,
  );
  console.log(`${''.padEnd(34)}  req/s        p50        p99   CPU per request`);
  row('straight to kube-lite (HTTPS)', s, cpuLine(straightRuns, ['kube-lite']));
  row('one bare Node HTTPS hop (reference)', f, cpuLine(forwardedRuns, ['kube-lite', 'forwarder']));
  row('two bare hops in a row (reference)', f2, cpuLine(twoHopRuns, ['kube-lite', 'forwarder', 'outer forwarder']));
  row('through proxy and tunnel', p, cpuLine(proxiedRuns, ['kube-lite', 'cluster-proxy', 'tunnel-agent']));
  const rpsByRound = straightRuns.map((r, i) =>
    [r, forwardedRuns[i], twoHopRuns[i], proxiedRuns[i]].map((x) => (x as Run).rps.toFixed(0)).join('/'),
  );
  console.log(`rounds (straight/one hop/two hops/proxied req/s): ${rpsByRound.join(', ')}`);
  console.log(
    `throughput ratio, proxy and tunnel / straight: ${ratio.toFixed(2)} ` +
      `(target >= 0.5: ${ratio >= 0.5 ? 'met' : 'NOT met'})`,
  );
  console.log(
    `  for reference: one bare hop / straight ${ratioOf(forwardedRuns).toFixed(2)}, ` +
      `two bare hops / straight ${ratioOf(twoHopRuns).toFixed(2)}`,
  );
  // The restated target: against the path's physical shape, two bare Node HTTPS hops, round by round.
  const sumCpu = (run: Run, names: string[], of: 'cpu' | 'sys' = 'cpu') =>
    names.reduce((sum, n) => sum + (run[of][n] ?? 0), 0);
  const hopRatios = proxiedRuns.map((r, i) => r.rps / (twoHopRuns[i] as Run).rps);
  const pathCpu = proxiedRuns.map((r) => sumCpu(r, ['cluster-proxy', 'tunnel-agent']));
  const hopsCpu = twoHopRuns.map((r) => sumCpu(r, ['forwarder', 'outer forwarder']));
  const hopRatio = median(hopRatios);
  const cpuRatio = median(pathCpu) / median(hopsCpu);
  console.log(
    `proxy and tunnel / two bare hops, req/s by round: ${hopRatios.map((x) => x.toFixed(2)).join(', ')}; ` +
      `median ${hopRatio.toFixed(2)} (target >= 0.9: ${hopRatio >= 0.9 ? 'met' : 'NOT met'})`,
  );
  console.log(
    `proxy + agent CPU per request by round: ${pathCpu.map((x) => x.toFixed(0)).join(', ')} µs; ` +
      `two forwarders': ${hopsCpu.map((x) => x.toFixed(0)).join(', ')} µs`,
  );
  console.log(
    `  medians ${median(pathCpu).toFixed(0)} µs against ${median(hopsCpu).toFixed(0)} µs: ${cpuRatio.toFixed(2)}× ` +
      `(by round ${pathCpu.map((x, i) => (x / (hopsCpu[i] as number)).toFixed(2)).join(', ')}; ` +
      `target <= 1.1×: ${cpuRatio <= 1.1 ? 'met' : 'NOT met'})`,
  );
  const pathSys = median(proxiedRuns.map((r) => sumCpu(r, ['cluster-proxy', 'tunnel-agent'], 'sys')));
  const hopsSys = median(twoHopRuns.map((r) => sumCpu(r, ['forwarder', 'outer forwarder'], 'sys')));
  console.log(
    `  of which in the kernel (system time, medians): ${pathSys.toFixed(0)} µs against ${hopsSys.toFixed(0)} µs; ` +
      `user ${(median(pathCpu) - pathSys).toFixed(0)} µs against ${(median(hopsCpu) - hopsSys).toFixed(0)} µs`,
  );

  // The native side of both paths (BENCH_PERF): one more load of each, recorded by `perf`.
  if (process.env.BENCH_PERF) {
    mkdirSync(process.env.BENCH_PERF, { recursive: true });
    for (const [target, names] of [
      [proxied, ['cluster-proxy', 'tunnel-agent']],
      [twoHops, ['forwarder', 'outer forwarder']],
    ] as const) {
      const measured = names.map((n) => services.find((s) => s.name === n) as Service);
      const file = join(process.env.BENCH_PERF, `${target.label.replace(' ', '-')}.data`);
      const recording = recordNative(
        measured.map((s) => s.child.pid as number),
        file,
      );
      await new Promise((r) => setTimeout(r, 500)); // perf attached
      // Without the label: the V8 profiles are read for the measured rounds, not this one.
      const run = await load({ url: target.url, headers: target.headers }, DURATION_MS);
      const threads = await recording.stop();
      const native = summarizeNative(file, threads);
      console.log(
        `\nnative profile (perf, every thread) under the load of ${target.label}: ` +
          `${run.rps.toFixed(0)} req/s while recorded`,
      );
      for (const s of measured) {
        const cpu = run.cpu[s.name] ?? 0;
        console.log(`  ${s.name}, ${cpu.toFixed(0)} µs per request:`);
        for (const g of (native.byPid.get(s.child.pid as number) ?? []).slice(0, 10))
          console.log(
            `    ${(100 * g.share).toFixed(1).padStart(5)}%  ${(g.share * cpu).toFixed(0).padStart(4)} µs  ${g.group}`,
          );
      }
    }
  }

  // --- 1b. The rights check on the hot path: both caches warm, as for every request but the first.
  const rightsPool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  const rights = new Rights({ db: rightsPool, platformId: 'default', ttlMs: 3_600_000, staleMode: 'best_effort' });
  const first = await rights.kubectl(cluster.id, ADMIN);
  if (!first.allowed) throw new Error(`the rights check refused the bench admin: ${first.message}`);
  const CHECKS = 2_000_000;
  let hits = 0;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < CHECKS; i++) {
    const right = rights.kubectl(cluster.id, ADMIN);
    if (!(right instanceof Promise) && right.allowed) hits++;
  }
  const cpu1 = process.cpuUsage(cpu0);
  await rightsPool.end();
  if (hits !== CHECKS) throw new Error(`only ${hits} of ${CHECKS} checks were cache hits`);
  const checkMicros = (cpu1.user + cpu1.system) / CHECKS;
  const proxyMicros = cpuOf(proxiedRuns, 'cluster-proxy');
  const pathMicros = ['kube-lite', 'cluster-proxy', 'tunnel-agent'].reduce((sum, n) => sum + cpuOf(proxiedRuns, n), 0);
  const share = checkMicros / pathMicros;
  console.log(
    `rights check (membership and cluster, cache hit): ${(checkMicros * 1000).toFixed(0)} ns per request = ` +
      `${((100 * checkMicros) / proxyMicros).toFixed(3)}% of the proxy's CPU per request, ` +
      `${(100 * share).toFixed(3)}% of the path's ` +
      `(the throughput it costs on a CPU-bound host; target <= 5%: ${share <= 0.05 ? 'met' : 'NOT met'})`,
  );

  // BENCH_ONLY_PATH=1 stops here, with the path's figures and their profile (for iterating on the hot path).
  if (process.env.BENCH_ONLY_PATH === '1') throw onlyPath;

  // --- 1c. Three replicas behind round-robin balancers, as behind a Kubernetes Service.
  const {
    port2,
    tunnel2,
    metrics2,
    inspect2,
    port3,
    tunnel3,
    metrics3,
    inspect3,
    tunnelLbPort,
    oneLbPort,
    threeLbPort,
    agent3Port,
    agent3Metrics,
    agent3Inspect,
  } = await freePorts(
    'port2',
    'tunnel2',
    'metrics2',
    'inspect2',
    'port3',
    'tunnel3',
    'metrics3',
    'inspect3',
    'tunnelLbPort',
    'oneLbPort',
    'threeLbPort',
    'agent3Port',
    'agent3Metrics',
    'agent3Inspect',
  );
  const replica2 = startReplica('cluster-proxy-2', 'bench-2', {
    port: port2,
    tunnel: tunnel2,
    metrics: metrics2,
    inspect: inspect2,
  });
  const replica3 = startReplica('cluster-proxy-3', 'bench-3', {
    port: port3,
    tunnel: tunnel3,
    metrics: metrics3,
    inspect: inspect3,
  });
  services.push(replica2, replica3);
  const replicas = [
    { id: 'bench-1', service: proxy, port: proxyPort, metrics: proxyMetricsPort, inspect: proxyInspectPort },
    { id: 'bench-2', service: replica2, port: port2, metrics: metrics2, inspect: inspect2 },
    { id: 'bench-3', service: replica3, port: port3, metrics: metrics3, inspect: inspect3 },
  ];
  const balancer = (name: string, port: number, backends: number[]) =>
    startService(name, 'services/cluster-proxy/bench/balancer.ts', {
      BALANCE_PORT: String(port),
      BALANCE_BACKENDS: backends.join(','),
    });
  const tunnelLb = balancer('tunnel-balancer', tunnelLbPort, [tunnelPort, tunnel2, tunnel3]);
  const oneLb = balancer('balancer-1', oneLbPort, [proxyPort]);
  const threeLb = balancer('balancer-3', threeLbPort, [proxyPort, port2, port3]);
  services.push(tunnelLb, oneLb, threeLb);
  for (const r of replicas)
    await until(`replica ${r.id}`, async () =>
      (await request(`https://127.0.0.1:${r.port}/readyz`)).status === 200 ? true : undefined,
    );
  // The agent of 1 stops (it drains) and one dialling the tunnel balancer takes its place, as in a cluster.
  await agent.stop();
  const agent3 = startService(
    'tunnel-agent-3',
    'services/tunnel-agent/src/server.ts',
    {
      PORT: String(agent3Port),
      METRICS_PORT: String(agent3Metrics),
      HOST: '127.0.0.1',
      PROXY_TUNNEL_URL: `http://127.0.0.1:${tunnelLbPort}`,
      CLUSTER_ID: cluster.id,
      AGENT_TOKEN: cluster.agentToken,
      KUBE_API_URL: kubeUrl,
      KUBE_TOKEN: kubeToken,
      KUBE_INSECURE_SKIP_TLS_VERIFY: 'true',
      AGENT_BACKOFF_INITIAL: '10ms',
      AGENT_BACKOFF_MAX: '50ms',
    },
    [],
    inspectable(agent3Inspect),
  );
  services.push(agent3);
  const tunnelGauges = () => Promise.all(replicas.map((r) => gauge(r.metrics, 'gsp_proxy_tunnels')));
  const coverage = await until(
    'the agent to hold a tunnel to each of three replicas',
    async () => {
      const ready = await request(`http://127.0.0.1:${agent3Port}/readyz`);
      const body = JSON.parse(ready.body) as { tunnels?: number; replicas?: number };
      const gauges = await tunnelGauges();
      return ready.status === 200 && body.tunnels === 3 && body.replicas === 3 && gauges.every((g) => g === 1)
        ? { tunnels: body.tunnels, gauges }
        : undefined;
    },
    60_000,
    50,
  );
  const agentIdle3 = await weigh(agent3, agent3Inspect);
  const viaOne = { url: `https://127.0.0.1:${oneLbPort}/clusters/${cluster.id}${PATH}`, headers: proxied.headers };
  const viaThree = { url: `https://127.0.0.1:${threeLbPort}/clusters/${cluster.id}${PATH}`, headers: proxied.headers };
  // bench-1 has served the rounds of 1; the newcomers are warmed as it was (JIT, pools) before they count.
  for (const r of replicas.slice(1))
    await load({ url: `https://127.0.0.1:${r.port}/clusters/${cluster.id}${PATH}`, headers: proxied.headers }, 2000);
  await load(viaOne, 2000);
  await load(viaThree, 2000);
  const hopRuns: Run[] = [];
  const oneRuns: Run[] = [];
  const threeRuns: Run[] = [];
  // A control: one replica held to the rate each of the three served in this round, to tell what
  // a lighter load per process costs per request from what three replicas cost.
  const thirdRuns: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    hopRuns.push(await load(twoHops, DURATION_MS));
    oneRuns.push(await load(viaOne, DURATION_MS));
    threeRuns.push(await load(viaThree, DURATION_MS));
    thirdRuns.push(await load(viaOne, DURATION_MS, Math.max(1, Math.round((threeRuns[round] as Run).rps / 3))));
  }
  const replicaNames = ['cluster-proxy', 'cluster-proxy-2', 'cluster-proxy-3'];
  console.log(
    `\nproxy replicas behind round-robin TCP balancers (balancer.ts); the agent dials the tunnel balancer and ` +
      `holds ${coverage.tunnels} tunnels (gsp_proxy_tunnels by replica ${coverage.gauges.join('/')}); ` +
      `${ROUNDS} alternating rounds`,
  );
  console.log(`${''.padEnd(34)}  req/s        p50        p99   CPU per request`);
  row('two bare hops in a row (reference)', summary(hopRuns), cpuLine(hopRuns, ['forwarder', 'outer forwarder']));
  const replicaCpu = ['balancer-1', 'balancer-3', ...replicaNames, 'tunnel-balancer', 'tunnel-agent-3'];
  row(
    'balancer → one replica',
    summary(oneRuns),
    cpuLine(
      oneRuns,
      replicaCpu.filter((n) => n !== 'balancer-3'),
    ),
  );
  row(
    'balancer → three replicas',
    summary(threeRuns),
    cpuLine(
      threeRuns,
      replicaCpu.filter((n) => n !== 'balancer-1'),
    ),
  );
  row(
    'one replica at a third of that rate',
    summary(thirdRuns),
    cpuLine(
      thirdRuns,
      replicaCpu.filter((n) => n !== 'balancer-3'),
    ),
  );
  const pathOf = (runs: Run[], lb: string) =>
    median(runs.map((r) => sumCpu(r, [...replicaNames, 'tunnel-agent-3']))).toFixed(0) +
    ` µs (+ balancers ${median(runs.map((r) => sumCpu(r, [lb, 'tunnel-balancer']))).toFixed(0)} µs)`;
  console.log(
    `proxies + agent CPU per request: one replica ${pathOf(oneRuns, 'balancer-1')}, ` +
      `three ${pathOf(threeRuns, 'balancer-3')}, ` +
      `one at a third of the rate of three ${pathOf(thirdRuns, 'balancer-1')}`,
  );
  const replicaRpsByRound = hopRuns.map((r, i) =>
    [r, oneRuns[i], threeRuns[i], thirdRuns[i]].map((x) => (x as Run).rps.toFixed(0)).join('/'),
  );
  console.log(`rounds (two hops/one replica/three replicas/control req/s): ${replicaRpsByRound.join(', ')}`);
  console.log(
    'three replicas / one by round: ' +
      `${threeRuns.map((r, i) => (r.rps / (oneRuns[i] as Run).rps).toFixed(2)).join(', ')}; ` +
      `/ two bare hops: one ${median(oneRuns.map((r, i) => r.rps / (hopRuns[i] as Run).rps)).toFixed(2)}, ` +
      `three ${median(threeRuns.map((r, i) => r.rps / (hopRuns[i] as Run).rps)).toFixed(2)} (medians)`,
  );

  // --- 1d. What one agent connection weighs: AGENTS agents (one cluster each) hold a tunnel to each replica.
  if (AGENTS > 0) {
    const many: { id: string; agentToken: string }[] = [];
    for (let i = 0; i < AGENTS; i++)
      many.push(
        JSON.parse(await callApi('POST', '/api/v1/tenants/bench/clusters', { name: `weigh-${i}` })) as {
          id: string;
          agentToken: string;
        },
      );
    writeFileSync(join(dir, 'agents.json'), JSON.stringify(many.map((c) => ({ id: c.id, agentToken: c.agentToken }))));
    const weighReplicas = () => Promise.all(replicas.map((r) => weigh(r.service, r.inspect)));
    const before = await weighReplicas();
    const agents = startService(
      'agents',
      'services/cluster-proxy/bench/agents.ts',
      {
        AGENTS_FILE: join(dir, 'agents.json'),
        AGENTS_TUNNELS: '3',
        PROXY_TUNNEL_URL: `http://127.0.0.1:${tunnelLbPort}`,
        KUBE_API_URL: kubeUrl,
        KUBE_TOKEN: kubeToken,
        ...(process.env.BENCH_FROM ? { BENCH_FROM: process.env.BENCH_FROM } : {}),
      },
      [],
      ['--expose-gc'],
    );
    services.push(agents);
    interface AgentsWeight extends Weight {
      phase: string;
      tunnels: number;
    }
    const weights = () =>
      agents
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{"phase"'))
        .map((l) => JSON.parse(l) as AgentsWeight);
    const [empty, full] = await until(
      `${AGENTS} agents to hold 3 tunnels each`,
      () => {
        if (agents.child.exitCode !== null) throw new Error('the agents exited');
        const w = weights();
        return w.length >= 2 ? w : undefined;
      },
      90_000,
      100,
    );
    const gauges = await until(
      'every replica to count the tunnels',
      async () => {
        const g = await tunnelGauges();
        return g.every((x) => x === AGENTS + 1) ? g : undefined;
      },
      10_000,
    );
    const after = await weighReplicas();
    const e = empty as AgentsWeight;
    const f = full as AgentsWeight;
    console.log(
      `\nmemory per agent connection: ${AGENTS} agents in one process (agents.ts, weighed after a full GC), ` +
        `${f.tunnels} tunnels (gsp_proxy_tunnels by replica ${gauges.join('/')})`,
    );
    console.log(
      `  the agents: RSS ${mib(e.rss)} → ${mib(f.rss)}, heap ${mib(e.heapUsed)} → ${mib(f.heapUsed)}: ` +
        `per agent (3 tunnels) RSS ${kib((f.rss - e.rss) / AGENTS)}, ` +
        `heap ${kib((f.heapUsed - e.heapUsed) / AGENTS)}; ` +
        `per tunnel RSS ${kib((f.rss - e.rss) / f.tunnels)}, heap ${kib((f.heapUsed - e.heapUsed) / f.tunnels)}`,
    );
    replicas.forEach((r, i) => {
      const b = before[i] as Weight;
      const a = after[i] as Weight;
      console.log(
        `  replica ${r.id} (after a full GC): RSS ${mib(b.rss)} → ${mib(a.rss)}, ` +
          `heap ${mib(b.heapUsed)} → ${mib(a.heapUsed)}: ` +
          `per tunnel RSS ${kib((a.rss - b.rss) / AGENTS)}, heap ${kib((a.heapUsed - b.heapUsed) / AGENTS)}`,
      );
    });
    console.log(
      `  the real agent process, idle after its start (after a full GC): ` +
        `1 tunnel RSS ${mib(agentIdle1.rss)}, heap ${mib(agentIdle1.heapUsed)}; ` +
        `3 tunnels RSS ${mib(agentIdle3.rss)}, heap ${mib(agentIdle3.heapUsed)} (two processes: a rough difference)`,
    );
    await agents.stop();
  }

  // --- 2. A large list over a distant tunnel: the agent dials through a relay that delays each
  // direction by RTT_MS / 2, as a cluster in another region would be.
  if (LIST_MIB > 0) {
    const relay = net.createServer((agentSide) => {
      const proxySide = net.connect(tunnelLbPort, '127.0.0.1');
      const delay = (to: net.Socket) => (chunk: Buffer) => void setTimeout(() => to.write(chunk), RTT_MS / 2);
      agentSide.on('data', delay(proxySide));
      proxySide.on('data', delay(agentSide));
      for (const [a, b] of [
        [agentSide, proxySide],
        [proxySide, agentSide],
      ] as const) {
        a.on('error', () => undefined);
        a.on('close', () => b.destroy());
      }
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const far = JSON.parse(await callApi('POST', '/api/v1/tenants/bench/clusters', { name: 'far' })) as {
      id: string;
      agentToken: string;
    };
    const farAgent = startService('far tunnel-agent', 'services/tunnel-agent/src/server.ts', {
      PORT: String(farAgentPort),
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      PROXY_TUNNEL_URL: `http://127.0.0.1:${(relay.address() as net.AddressInfo).port}`,
      CLUSTER_ID: far.id,
      AGENT_TOKEN: far.agentToken,
      KUBE_API_URL: kubeUrl,
      KUBE_TOKEN: kubeToken,
      KUBE_INSECURE_SKIP_TLS_VERIFY: 'true',
    });
    services.push(farAgent);
    await until('the far agent to connect', async () =>
      (await request(`http://127.0.0.1:${farAgentPort}/readyz`)).status === 200 ? true : undefined,
    );
    const blob = 'x'.repeat(512 * 1024);
    for (let i = 0; i < LIST_MIB * 2; i++) {
      const body = JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `blob-${i}`, namespace: 'default', labels: { bench: 'list' } },
        data: { blob },
      });
      const created = await request(`${kubeUrl}/api/v1/namespaces/default/configmaps`, {
        method: 'POST',
        headers: { authorization: `Bearer ${kubeToken}`, 'content-type': 'application/json' },
        body,
      });
      if (created.status !== 201) throw new Error(`creating a ConfigMap answered ${created.status}`);
    }
    const listPath = '/api/v1/namespaces/default/configmaps?labelSelector=bench%3Dlist';
    const fetchList = async (clusterId: string) => {
      const t0 = performance.now();
      const answer = await request(`${proxyUrl}/clusters/${clusterId}${listPath}`, {
        headers: { authorization: `Bearer ${clusterId === cluster.id ? token : farToken}` },
      });
      if (answer.status !== 200) throw new Error(`the list answered ${answer.status}`);
      return { seconds: (performance.now() - t0) / 1000, mib: Buffer.byteLength(answer.body) / 2 ** 20 };
    };
    const farKubeconfig = await callApi('GET', `/api/v1/tenants/bench/clusters/${far.id}/kubeconfig`);
    const farToken = /token: "?([^"\s]+)"?/.exec(farKubeconfig)?.[1] ?? '';
    await fetchList(far.id); // warm-up: the HTTP/2 windows open, the JIT settles
    const near = median(
      [await fetchList(cluster.id), await fetchList(cluster.id), await fetchList(cluster.id)].map(
        (r) => r.mib / r.seconds,
      ),
    );
    const farRuns = [await fetchList(far.id), await fetchList(far.id), await fetchList(far.id)];
    const farRate = median(farRuns.map((r) => r.mib / r.seconds));
    console.log(
      `\n${(farRuns[0]?.mib ?? 0).toFixed(1)} MiB list through the tunnel (medians of 3): ` +
        `${farRate.toFixed(1)} MiB/s over ${RTT_MS} ms RTT, ${near.toFixed(1)} MiB/s next door`,
    );
    console.log(
      `  (with HTTP/2's default 64 KiB window it would be at most ` +
        `${(64 / 1024 / (RTT_MS / 1000)).toFixed(1)} MiB/s over ${RTT_MS} ms)`,
    );
    relay.close();
  }

  // --- 3. The switch: PUT false, then the first 410 and the end of a watch running in the tunnel.
  if (TOGGLES > 0) {
    const probeAgent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
    const probe = async () =>
      (await request(proxied.url, { headers: proxied.headers, agent: probeAgent }).catch(() => ({ status: 0 }))).status;
    const setSwitch = (value: boolean) =>
      callApi('PUT', '/api/v1/platform/feature-flags/cli_access.enabled', { value });
    /** Starts a watch through the proxy; `ended` resolves with the time its stream ended. */
    const startWatch = () =>
      new Promise<{ ended: Promise<number> }>((started, failed) => {
        const req = https.request(
          `${proxyUrl}/clusters/${cluster.id}/api/v1/namespaces?watch=true`,
          { headers: proxied.headers, rejectUnauthorized: false, agent: false },
          (res) => {
            if (res.statusCode !== 200) return failed(new Error(`watch answered ${res.statusCode}`));
            res.resume();
            started({ ended: new Promise<number>((ended) => res.once('close', () => ended(performance.now()))) });
          },
        );
        req.on('error', failed);
        req.end();
      });
    const to410: number[] = [];
    const toClose: number[] = [];
    for (let i = 0; i < TOGGLES; i++) {
      await until('the agent to reconnect', async () => ((await probe()) === 200 ? true : undefined), 10_000, 5);
      const watch = await startWatch();
      await setSwitch(false);
      const t0 = performance.now();
      await until('the first 410', async () => ((await probe()) === 410 ? true : undefined), 10_000, 0);
      to410.push(performance.now() - t0);
      toClose.push(Math.max(0, (await watch.ended) - t0));
      await setSwitch(true);
    }
    to410.sort((a, b) => a - b);
    toClose.sort((a, b) => a - b);
    console.log(`\n${TOGGLES} toggles with Redis, from the PUT's response`);
    console.log(
      `first 410:                p50 ${ms(percentile(to410, 50))}  ` +
        `p99 ${ms(percentile(to410, 99))}  (target p99 < 100 ms)`,
    );
    console.log(
      `watch in the tunnel ended: p50 ${ms(percentile(toClose, 50))}  ` +
        `p99 ${ms(percentile(toClose, 99))}  (target p99 < 500 ms)`,
    );
    probeAgent.destroy();
  }
} catch (err) {
  if (err === onlyPath) process.exitCode = 0;
  else {
    for (const service of services) console.error(`--- ${service.name} printed:\n${service.output()}`);
    throw err;
  }
} finally {
  for (const service of services.reverse()) await service.stop();
  // The profiles are written as each process stops: where the proxied GET's CPU went, beside a bare hop's.
  // Read for the windows of the target's lines (1): the proxied GET, and the two bare hops.
  if (process.env.BENCH_CPU_PROF)
    for (const [name, label] of [
      ['cluster-proxy', 'proxied'],
      ['tunnel-agent', 'proxied'],
      ['outer forwarder', 'two hops'],
      ['forwarder', 'two hops'],
    ] as const) {
      try {
        const profiles = join(process.env.BENCH_CPU_PROF, name);
        const windows = loadWindows.get(label) ?? [];
        printSummary(
          `${name} under the load of ${label}`,
          summarize(
            mainProfile(profiles),
            windows.map((w) => w.window),
          ),
          windows.reduce((sum, w) => sum + (w.cpu[name] ?? 0) * w.requests, 0) /
            windows.reduce((sum, w) => sum + w.requests, 0),
        );
      } catch (err) {
        console.error(`no profile summary of ${name}: ${(err as Error).message}`);
      }
    }
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
  await admin.end().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
