import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Test } from 'tap';
import { startKubeLite } from '@gsp/kube-lite';
import type { KubeLite } from '@gsp/kube-lite';
import { generateSelfSignedCertificate } from '@gsp/service-kit';
import { startAgent } from '@gsp/tunnel-agent/src/agent.js';
import type { AgentOptions, TunnelAgent } from '@gsp/tunnel-agent/src/agent.js';
import { kubeTarget } from '@gsp/tunnel-agent/src/kube.js';
import { bearer, build, PLATFORM_ADMIN, registerCluster, seedTenant } from '@gsp/api-server/test/helper.js';
import type { Built } from '@gsp/api-server/test/helper.js';
import { freePort, OPERATOR, ORG, redisPrefix, TEST_REDIS_URL, until } from '../stack.js';
import { Balancer } from './balancer.js';

/**
 * Several cluster-proxy replicas as separate processes (started, stopped with SIGTERM or SIGKILL and
 * restarted on the same ports), behind a TCP round-robin balancer for kubectl and another for the
 * agents, with the API server, a kube-lite and one tunnel agent in this process.
 */

export { until, ORG, OPERATOR };
/** A second operator of the tenant (still a member after OPERATOR is removed). */
export const OTHER_OPERATOR = 'oscar';

const SERVER = fileURLToPath(new URL('../../src/server.ts', import.meta.url));
const debug = process.env.TUNNEL_DEBUG === '1';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** From the signal to the exit. */
  ms: number;
}

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

  /** Starts the process and waits until its /readyz answers 200. */
  async start(): Promise<void> {
    if (this.child) throw new Error(`replica ${this.id} already runs`);
    this.starts += 1;
    const log = createWriteStream(join(this.logDir, `${this.id}.${this.starts}.log`));
    const child = spawn(process.execPath, ['--conditions=@gsp/source', '--import', 'tsx', SERVER], {
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
    await until(
      `replica ${this.id} to be ready`,
      async () => {
        if (this.child !== child) throw new Error(`replica ${this.id} exited at start; see ${this.logDir}`);
        return (await this.ready()) ? true : undefined;
      },
      30_000,
      50,
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

  /** Sends `signal` now; `exit` resolves when the process is gone. */
  signal(signal: NodeJS.Signals): Promise<Exit> {
    if (!this.child || !this.exited) throw new Error(`replica ${this.id} does not run`);
    this.signalledAt = Date.now();
    this.child.kill(signal);
    return this.exited;
  }

  /** Sends `signal` and waits for the exit. */
  stop(signal: NodeJS.Signals): Promise<Exit> {
    return this.signal(signal);
  }

  async kill(): Promise<void> {
    if (this.child) await this.signal('SIGKILL');
  }
}

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTPS GET (or `method`), trusting `ca`; rejects on a network error or after `timeoutMs`. */
export function request(
  url: string,
  options: { ca: string; token?: string; method?: string; timeoutMs?: number; agent?: https.Agent },
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, {
      method: options.method ?? 'GET',
      ca: options.ca,
      agent: options.agent ?? false,
      headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
      timeout: options.timeoutMs ?? 15_000,
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs ?? 15_000} ms`)));
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

export interface ReplicaStackOptions {
  replicas?: number;
  /** Extra variables of every replica (PRESENCE_LEASE, TUNNEL_PING_INTERVAL, TUNNEL_WAIT, DRAIN_GRACE…). */
  proxyEnv?: Record<string, string>;
  /** Extra options of the agent (pingIntervalMs, syncIntervalMs, drainGraceMs…). */
  agentOptions?: Partial<AgentOptions> & Record<string, unknown>;
  tunnelBalancer?: ConstructorParameters<typeof Balancer>[0];
}

export interface ReplicaStack {
  api: Built;
  apiUrl: string;
  /** A pool on the API server's schema, to read agent_tunnels and proxy_replicas. */
  db: pg.Pool;
  ca: string;
  replicas: Replica[];
  kubectlBalancer: Balancer;
  tunnelBalancer: Balancer;
  /** https://127.0.0.1:<kubectl balancer>, the kubeconfigs' server. */
  balancerUrl: string;
  cluster: { id: string; agentToken: string; kube: KubeLite };
  agent: TunnelAgent;
  /** OPERATOR's kubeconfig token. */
  token: string;
  /** OPERATOR's kubeconfig file, through the kubectl balancer. */
  kubeconfig: string;
  /** The same kubeconfig, straight to one replica. */
  kubeconfigFor(replica: Replica): string;
  /** `subject`'s kubeconfig (downloaded now) written to a file, straight to `replica` or through the balancer. */
  kubeconfigOf(subject: string, replica?: Replica): Promise<{ path: string; token: string }>;
  /** `path` of the cluster's API at `base` (the balancer's URL by default). */
  clusterUrl(path: string, base?: string): string;
  /** Starts one more replica (new ports, behind both balancers) and waits until it is ready. */
  addReplica(): Promise<Replica>;
  /** Stops the agent and starts a new one with `agentToken` (the cluster's by default). */
  restartAgent(agentToken?: string): Promise<TunnelAgent>;
  /** An extra agent dialling `tunnelUrl` with `agentToken` (stopped with the test). */
  extraAgent(tunnelUrl: string, agentToken: string): TunnelAgent;
  /** The replica ids holding a live tunnel of the cluster, by agent_tunnels (sorted; one per tunnel). */
  held(clusterId?: string): Promise<string[]>;
  /** The replicas counted in proxy_replicas (live, not draining), sorted; undefined while the table is absent. */
  counted(): Promise<string[] | undefined>;
  /** Waits until the agent holds exactly one tunnel to each replica of `ids`; resolves with the milliseconds. */
  untilHeldBy(ids: string[], ms: number, from?: number): Promise<number>;
  /** The live tunnels each replica reports (gsp_proxy_tunnels), by id; -1 when its metrics do not answer. */
  tunnelGauges(): Promise<Record<string, number>>;
  setSwitch(value: boolean | null, clusterId?: string): Promise<number>;
  /** PLATFORM_ADMIN calls the API. */
  admin(method: 'PUT' | 'DELETE' | 'POST', url: string, payload?: object): Promise<{ status: number; body: string }>;
}

/** The balancers, the API server, `replicas` proxy processes, kube-lite and the agent; all stopped with `t`. */
export async function startReplicaStack(t: Test, options: ReplicaStackOptions = {}): Promise<ReplicaStack> {
  const dir = mkdtempSync(join(tmpdir(), 'gsp-replicas-'));
  // The replicas' logs stay for a failed test.
  t.teardown(() => {
    if (t.passing() && !debug) rmSync(dir, { recursive: true, force: true });
    else console.error(`# replica logs kept in ${dir}`);
  });
  const certificate = generateSelfSignedCertificate('gsp-cluster-proxy');
  const certFile = join(dir, 'proxy.crt');
  const keyFile = join(dir, 'proxy.key');
  writeFileSync(certFile, certificate.cert);
  writeFileSync(keyFile, certificate.key);
  const ca = certificate.cert;

  const kubectlBalancer = new Balancer();
  const tunnelBalancer = new Balancer(options.tunnelBalancer);
  const balancerUrl = `https://${await kubectlBalancer.listen(t)}`;
  const tunnelUrl = `http://${await tunnelBalancer.listen(t)}`;

  const redis = { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() };
  const api = await build(t, { PROXY_PUBLIC_URL: balancerUrl, PROXY_CA_FILE: certFile, ...redis });
  const apiUrl = await api.app.listen({ port: 0, host: '127.0.0.1' });
  await seedTenant(api.app, ORG, { [OPERATOR]: 'operator', [OTHER_OPERATOR]: 'operator', viewer: 'viewer' });
  const db = new pg.Pool({ connectionString: api.databaseUrl, max: 3 });
  t.teardown(() => db.end());

  const proxyEnv: Record<string, string> = {
    DATABASE_URL: api.databaseUrl,
    API_SERVER_URL: apiUrl,
    HOST: '127.0.0.1',
    TLS_CERT_FILE: certFile,
    TLS_KEY_FILE: keyFile,
    ...redis,
    // Only an event can explain a fast refusal or a fast switch.
    SERVICE_CACHE_FLAGS_TTL: '60s',
    PRESENCE_LEASE: '1500ms',
    LOG_LEVEL: debug ? 'debug' : 'info',
    ...options.proxyEnv,
  };
  const replicas: Replica[] = [];
  const newReplica = async (): Promise<Replica> => {
    const [port, tunnelPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
    const replica = new Replica(`r${replicas.length + 1}`, port, tunnelPort, metricsPort, proxyEnv, dir, ca);
    replicas.push(replica);
    t.teardown(() => replica.kill());
    const kubectlBackend = kubectlBalancer.add(replica.id, port);
    const tunnelBackend = tunnelBalancer.add(replica.id, tunnelPort);
    kubectlBackend.ready = tunnelBackend.ready = false;
    return replica;
  };
  for (let i = 0; i < (options.replicas ?? 3); i++) await newReplica();
  await Promise.all(replicas.map((r) => r.start()));

  // Readiness as a Service sees it: a replica whose /readyz fails gets no new connections.
  let probing = true;
  const probe = (async () => {
    while (probing) {
      await Promise.all(
        replicas.map(async (r) => {
          const ready = r.running && (await r.ready());
          kubectlBalancer.backend(r.id).ready = ready;
          tunnelBalancer.backend(r.id).ready = ready;
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  t.teardown(async () => {
    probing = false;
    await probe;
  });

  const { id, agentToken } = await registerCluster(api.app, ORG, 'arena');
  const kube = await startKubeLite({ port: 0, stepMs: 20 });
  t.teardown(() => kube.close());
  const target = await kubeTarget({
    url: kube.url,
    token: 'agent-own-credential',
    clientCertFile: undefined,
    clientKeyFile: undefined,
    caFile: undefined,
    insecureSkipTlsVerify: false,
  });
  t.teardown(() => target.close());
  const say = (level: string) => (obj: object, msg: string) => {
    if (debug) console.error(`[agent ${level}] ${msg} ${JSON.stringify(obj)}`);
  };
  const launch = (url: string, token: string): TunnelAgent => {
    const agent = startAgent({
      proxyTunnelUrl: url,
      clusterId: id,
      agentToken: token,
      kube: target,
      backoffInitialMs: 20,
      backoffMaxMs: 1000,
      backoffResetMs: 60_000,
      log: { info: say('info'), warn: say('warn'), error: say('error') },
      ...options.agentOptions,
    } as AgentOptions);
    t.teardown(() => agent.stop());
    return agent;
  };

  const download = async (subject: string): Promise<string> => {
    const res = await api.app.inject({
      url: `/api/v1/tenants/${ORG}/clusters/${id}/kubeconfig`,
      headers: await bearer(subject),
    });
    if (res.statusCode !== 200) throw new Error(`kubeconfig of ${subject}: ${res.statusCode} ${res.body}`);
    return res.body;
  };
  const kubeconfigText = await download(OPERATOR);
  const token = /token: "?([^"\s]+)"?/.exec(kubeconfigText)?.[1] ?? '';
  const kubeconfig = join(dir, 'kubeconfig.yaml');
  writeFileSync(kubeconfig, kubeconfigText);
  if (!kubeconfigText.includes(balancerUrl)) throw new Error(`the kubeconfig does not name ${balancerUrl}`);

  const held = async (clusterId = id): Promise<string[]> =>
    (
      await db.query<{ proxy_id: string }>(
        'SELECT proxy_id FROM agent_tunnels WHERE cluster_id = $1 AND lease_expires_at > now() ORDER BY proxy_id',
        [clusterId],
      )
    ).rows.map((r) => r.proxy_id);

  const stack: ReplicaStack = {
    api,
    apiUrl,
    db,
    ca,
    replicas,
    kubectlBalancer,
    tunnelBalancer,
    balancerUrl,
    cluster: { id, agentToken, kube },
    agent: launch(tunnelUrl, agentToken),
    token,
    kubeconfig,
    kubeconfigFor(replica) {
      const path = join(dir, `kubeconfig-${replica.id}.yaml`);
      writeFileSync(path, kubeconfigText.replaceAll(balancerUrl, replica.url));
      return path;
    },
    async kubeconfigOf(subject, replica) {
      const text = await download(subject);
      const path = join(dir, `kubeconfig-${subject}-${replica?.id ?? 'balancer'}.yaml`);
      writeFileSync(path, replica ? text.replaceAll(balancerUrl, replica.url) : text);
      return { path, token: /token: "?([^"\s]+)"?/.exec(text)?.[1] ?? '' };
    },
    clusterUrl: (path, base = balancerUrl) => `${base}/clusters/${id}${path}`,
    async addReplica() {
      const replica = await newReplica();
      await replica.start();
      return replica;
    },
    async restartAgent(newToken = agentToken) {
      await stack.agent.stop();
      stack.agent = launch(tunnelUrl, newToken);
      return stack.agent;
    },
    extraAgent: (url, agentTokenToUse) => launch(url, agentTokenToUse),
    held,
    async counted() {
      try {
        const { rows } = await db.query<{ replica_id: string }>(
          'SELECT replica_id FROM proxy_replicas WHERE expires_at > now() AND NOT draining ORDER BY replica_id',
        );
        return rows.map((r) => r.replica_id);
      } catch {
        return undefined;
      }
    },
    async untilHeldBy(ids, ms, from = Date.now()) {
      const want = [...ids].sort().join();
      await until(
        `the agent to hold one tunnel to each of ${want}`,
        async () => ((await held()).join() === want ? true : undefined),
        ms,
        20,
      ).catch(async (err: Error) => {
        throw new Error(
          `${err.message}; held: ${(await held()).join() || 'none'}, counted: ${(await stack.counted())?.join()}, ` +
            `tunnel balancer live: ${JSON.stringify(tunnelBalancer.liveCounts())}`,
        );
      });
      return Date.now() - from;
    },
    async tunnelGauges() {
      const entries = await Promise.all(
        replicas.map(async (r): Promise<[string, number]> => {
          try {
            const res = await metricsText(r.metricsPort);
            const value = /^gsp_proxy_tunnels (\d+)/m.exec(res)?.[1];
            return [r.id, value === undefined ? -1 : Number(value)];
          } catch {
            return [r.id, -1];
          }
        }),
      );
      return Object.fromEntries(entries);
    },
    async setSwitch(value, clusterId) {
      const url =
        clusterId === undefined
          ? '/api/v1/platform/feature-flags/cli_access.enabled'
          : `/api/v1/tenants/${ORG}/clusters/${clusterId}/feature-flags/cli_access.enabled`;
      const res = await api.app.inject({
        method: value === null ? 'DELETE' : 'PUT',
        url,
        headers: await bearer(PLATFORM_ADMIN),
        ...(value === null ? {} : { payload: { value } }),
      });
      return res.statusCode;
    },
    async admin(method, url, payload) {
      const res = await api.app.inject({
        method,
        url,
        headers: await bearer(PLATFORM_ADMIN),
        ...(payload ? { payload } : {}),
      });
      return { status: res.statusCode, body: res.body };
    },
  };
  return stack;
}

/** The Prometheus text of a replica's METRICS_PORT (plain HTTP). */
async function metricsText(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(1000) });
  return res.text();
}

/**
 * Polls `check` at every replica of `replicas` at once until each passes; resolves with the
 * milliseconds since `from` at which each first did, by id. Rejects after `ms` naming the late ones.
 */
export async function untilEveryReplica(
  replicas: readonly Replica[],
  what: string,
  check: (replica: Replica) => Promise<boolean>,
  ms: number,
  from = Date.now(),
): Promise<Record<string, number>> {
  const times: Record<string, number> = {};
  const deadline = from + ms;
  await Promise.all(
    replicas.map(async (replica) => {
      while (Date.now() < deadline) {
        if (await check(replica).catch(() => false)) {
          times[replica.id] = Date.now() - from;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }),
  );
  const late = replicas.filter((r) => times[r.id] === undefined).map((r) => r.id);
  if (late.length > 0) throw new Error(`${what}: not on ${late.join(', ')} within ${ms} ms (${JSON.stringify(times)})`);
  return times;
}
