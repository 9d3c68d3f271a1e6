import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { generateSelfSignedCertificate } from '@gsp/service-kit';
import { bearer, build, registerCluster, seedTenant, until } from '@gsp/api-server/test/helper.js';
import { kubeTarget } from '../src/kube.js';
import { startAgent } from '../src/agent.js';
import type { AgentOptions, TunnelAgent } from '../src/agent.js';

/**
 * Real cluster-proxy replicas (processes of services/cluster-proxy/src/server.ts on one database,
 * each with its PROXY_REPLICA_ID) behind a TCP round-robin balancer, the API server, a stand-in
 * Kubernetes API and agents of this package, for the agent's side of several replicas.
 */

export { until };

const ORG = 'acme';
const OPERATOR = 'olivia';
const SERVER = fileURLToPath(new URL('../../cluster-proxy/src/server.ts', import.meta.url));
const debug = process.env.TUNNEL_DEBUG === '1';

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A TCP round-robin balancer, as a Service in front of the replicas: each new connection goes to the
 * next backend that is up; one that refuses the connection is skipped; with none left the client's
 * connection is dropped.
 */
export class Balancer {
  private readonly backends: { name: string; port: number; up: boolean }[] = [];
  private next = 0;
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer({ noDelay: true }, (client) => this.accept(client));
  /** Connections passed on, by backend name. */
  readonly passed = new Map<string, number>();

  async listen(t: Test): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => {
      for (const s of this.sockets) s.destroy();
      this.server.close();
    });
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  add(name: string, port: number): void {
    this.backends.push({ name, port, up: true });
  }

  /** `up: false`: no new connection goes there (an unready endpoint); open ones stay. */
  setUp(name: string, up: boolean): void {
    for (const b of this.backends) if (b.name === name) b.up = up;
  }

  private accept(client: net.Socket): void {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => undefined);
    client.pause();
    const order = this.backends.map((_, i) => this.backends[(this.next + i) % this.backends.length]!);
    this.next = (this.next + 1) % Math.max(1, this.backends.length);
    const tryNext = (): void => {
      const backend = order.shift();
      if (backend === undefined) return void client.destroy();
      if (!backend.up || client.destroyed) return tryNext();
      const upstream = net.connect({ port: backend.port, host: '127.0.0.1', noDelay: true });
      let connected = false;
      upstream.once('error', () => {
        if (!connected) tryNext();
      });
      upstream.once('connect', () => {
        connected = true;
        this.passed.set(backend.name, (this.passed.get(backend.name) ?? 0) + 1);
        this.sockets.add(upstream);
        upstream.on('close', () => {
          this.sockets.delete(upstream);
          client.destroy();
        });
        client.on('close', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    tryNext();
  }
}

/** One cluster-proxy replica process, restartable on the same ports and id. */
export class Replica {
  private child: ChildProcess | undefined;
  private exit: Promise<number | null> | undefined;
  private starts = 0;

  constructor(
    readonly id: string,
    readonly port: number,
    readonly tunnelPort: number,
    readonly metricsPort: number,
    private readonly env: Record<string, string>,
    private readonly dir: string,
    private readonly ca: string,
  ) {}

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** Starts the process and waits until its /readyz answers 200. */
  async start(): Promise<void> {
    this.starts += 1;
    const log = createWriteStream(join(this.dir, `${this.id}.${this.starts}.log`));
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
    this.exit = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    void this.exit.then(() => {
      if (this.child === child) this.child = undefined;
    });
    await until(
      `replica ${this.id} to be ready`,
      async () => {
        if (this.child !== child) throw new Error(`replica ${this.id} exited at start; see ${this.dir}`);
        const res = await get(`${this.url}/readyz`, this.ca).catch(() => undefined);
        return res?.status === 200 ? true : undefined;
      },
      // A loaded 2-core host can take long to start a TypeScript process.
      60_000,
      50,
    );
  }

  /** Sends `signal`; resolves with the exit code once the process is gone. */
  stop(signal: NodeJS.Signals): Promise<number | null> {
    if (!this.child || !this.exit) return Promise.resolve(null);
    this.child.kill(signal);
    return this.exit;
  }

  /** A metric of this replica (summed over the series matching `labels`), or undefined. */
  async metric(name: string, labels = ''): Promise<number | undefined> {
    const res = await get(`http://127.0.0.1:${this.metricsPort}/metrics`).catch(() => undefined);
    if (res === undefined) return undefined;
    let sum: number | undefined;
    for (const line of res.body.split('\n')) {
      const m = /^(\w+)(\{[^}]*\})? (\S+)$/.exec(line);
      if (m?.[1] === name && (m[2] ?? '').includes(labels)) sum = (sum ?? 0) + Number(m[3]);
    }
    return sum;
  }
}

export interface Answer {
  status: number;
  body: string;
}

/** One GET (HTTPS trusting `ca`, or plain HTTP); rejects on a network error. */
export function get(url: string, ca?: string, token?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const options = { agent: false, headers: token ? { authorization: `Bearer ${token}` } : {}, ca };
    const req = (url.startsWith('https:') ? https : http).get(url, options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

export interface ReplicaSetup {
  replicas: Replica[];
  balancer: Balancer;
  /** The balancer's address: the agents' PROXY_TUNNEL_URL. */
  tunnelUrl: string;
  clusterId: string;
  /** Requests the stand-in Kubernetes API received, by path. */
  seen: string[];
  /** Starts one more replica (`r<n>`, new ports, behind the balancer) and waits until it is ready. */
  addReplica(): Promise<Replica>;
  /** The variables of an agent process of the cluster dialling the balancer. */
  agentEnv: Record<string, string>;
  /** An agent of the cluster dialling the balancer, stopped with the test. */
  agent(options?: Partial<AgentOptions>): TunnelAgent;
  /** GETs `path` of the cluster through `replica` as the operator (kubectl's request). */
  kubectlGet(replica: Replica, path: string): Promise<Answer>;
  /** The operator's bearer token for the cluster, and the CA the replicas' certificate is trusted by. */
  token: string;
  ca: string;
}

/**
 * `count` replicas behind the balancer, started and ready, with the API server and a stand-in
 * Kubernetes API that answers `/api` at once and `/slow?ms=N` after N ms.
 */
export async function startReplicas(
  t: Test,
  count: number,
  proxyEnv: Record<string, string> = {},
): Promise<ReplicaSetup> {
  const dir = mkdtempSync(join(tmpdir(), 'gsp-agent-replicas-'));
  t.teardown(() => {
    if (t.passing() && !debug) rmSync(dir, { recursive: true, force: true });
    else console.error(`# replica logs kept in ${dir}`);
  });
  const certificate = generateSelfSignedCertificate('gsp-cluster-proxy');
  writeFileSync(join(dir, 'proxy.crt'), certificate.cert);
  writeFileSync(join(dir, 'proxy.key'), certificate.key);
  const ca = certificate.cert;

  const balancer = new Balancer();
  const tunnelUrl = await balancer.listen(t);
  const api = await build(t, { PROXY_PUBLIC_URL: 'https://127.0.0.1:1', PROXY_CA_FILE: join(dir, 'proxy.crt') });
  const apiUrl = await api.app.listen({ port: 0, host: '127.0.0.1' });
  await seedTenant(api.app, ORG, { [OPERATOR]: 'operator' });
  const { id: clusterId, agentToken } = await registerCluster(api.app, ORG, 'arena');
  const kubeconfig = await api.app.inject({
    url: `/api/v1/tenants/${ORG}/clusters/${clusterId}/kubeconfig`,
    headers: await bearer(OPERATOR),
  });
  const token = /token: "?([^"\s]+)"?/.exec(kubeconfig.body)?.[1] ?? '';

  const seen: string[] = [];
  const kubeApi = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://kube');
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"kind":"APIVersions"}');
    if (url.pathname === '/slow') setTimeout(answer, Number(url.searchParams.get('ms') ?? 1000));
    else answer();
  });
  await new Promise<void>((resolve) => kubeApi.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    kubeApi.closeAllConnections();
    kubeApi.close();
  });
  const kubeUrl = `http://127.0.0.1:${(kubeApi.address() as AddressInfo).port}`;
  const kube = await kubeTarget({
    url: kubeUrl,
    token: 'agent-own-credential',
    clientCertFile: undefined,
    clientKeyFile: undefined,
    caFile: undefined,
    insecureSkipTlsVerify: false,
  });
  t.teardown(() => kube.close());

  const env: Record<string, string> = {
    DATABASE_URL: api.databaseUrl,
    API_SERVER_URL: apiUrl,
    HOST: '127.0.0.1',
    TLS_CERT_FILE: join(dir, 'proxy.crt'),
    TLS_KEY_FILE: join(dir, 'proxy.key'),
    // A heartbeat every 500 ms: the replicas count each other (and a scale-up reaches agents) that fast.
    PRESENCE_LEASE: '1500ms',
    LOG_LEVEL: debug ? 'debug' : 'info',
    ...proxyEnv,
  };
  const replicas: Replica[] = [];
  const addReplica = async (): Promise<Replica> => {
    const [port, tunnelPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
    const replica = new Replica(`r${replicas.length + 1}`, port, tunnelPort, metricsPort, env, dir, ca);
    replicas.push(replica);
    t.teardown(() => replica.stop('SIGKILL'));
    await replica.start();
    balancer.add(replica.id, tunnelPort);
    return replica;
  };
  await Promise.all(Array.from({ length: count }, () => addReplica()));

  const say = (level: string) => (obj: object, msg: string) => {
    if (debug) console.error(`[agent ${level}] ${msg} ${JSON.stringify(obj)}`);
  };
  return {
    replicas,
    balancer,
    tunnelUrl,
    clusterId,
    seen,
    addReplica,
    agentEnv: { PROXY_TUNNEL_URL: tunnelUrl, CLUSTER_ID: clusterId, AGENT_TOKEN: agentToken, KUBE_API_URL: kubeUrl },
    agent(options = {}) {
      const agent = startAgent({
        proxyTunnelUrl: tunnelUrl,
        clusterId,
        agentToken,
        kube,
        backoffInitialMs: 100,
        backoffMaxMs: 1000,
        backoffResetMs: 60_000,
        log: { info: say('info'), warn: say('warn'), error: say('error') },
        ...options,
      });
      t.teardown(() => agent.stop());
      return agent;
    },
    kubectlGet: (replica, path) => get(`${replica.url}/clusters/${clusterId}${path}`, ca, token),
    token,
    ca,
  };
}

/** Waits until the agent serves through exactly the replicas `ids`; resolves with the milliseconds since `from`. */
export async function untilHolding(agent: TunnelAgent, ids: string[], from = Date.now(), ms = 15_000): Promise<number> {
  const want = [...ids].sort().join();
  await until(`the agent to hold ${want}`, () => (agent.replicas.join() === want ? true : undefined), ms, 5).catch(
    (err: Error) => {
      throw new Error(`${err.message}; it holds ${agent.replicas.join() || 'none'} (target ${agent.target})`);
    },
  );
  return Date.now() - from;
}
