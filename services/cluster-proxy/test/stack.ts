import { spawn } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import type { ClientRequest } from 'node:http';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { findKubectl, startKubeLite } from '@gsp/kube-lite';
import type { KubeLite } from '@gsp/kube-lite';
import { bearer, build, PLATFORM_ADMIN, registerCluster, seedTenant, until } from '@gsp/api-server/testing';
import { redisPrefix, TEST_REDIS_URL } from '@gsp/api-server/testing';
import type { Built } from '@gsp/api-server/testing';
import { buildAgentApp, kubeTarget, loadConfig as loadAgentConfig, startAgent } from '@gsp/tunnel-agent';
import type { AgentApp, TunnelAgent } from '@gsp/tunnel-agent';
import { loadConfig } from '../src/config.js';
import { buildClusterProxy } from '../src/proxy/proxy.js';
import { generateSelfSignedCertificate } from '@gsp/service-kit';
import { freePort } from '@gsp/test-kit/replicas';
import type { ClusterProxy } from '../src/proxy/proxy.js';

export { until, redisPrefix, TEST_REDIS_URL, cuttableDatabaseUrl } from '@gsp/api-server/testing';

export const ORG = 'acme';
export const OPERATOR = 'olivia';

export { freePort };

export interface StackCluster {
  id: string;
  agentToken: string;
  kube: KubeLite;
  agent: TunnelAgent;
  /** Downloads a kubeconfig as OPERATOR and writes it to a file for kubectl. */
  kubeconfig(): Promise<string>;
}

export interface Stack {
  api: Built;
  apiUrl: string;
  proxy: ClusterProxy;
  proxyUrl: string;
  /** The proxy's certificate, to trust in raw HTTPS requests. */
  ca: string;
  tunnelUrl: string;
  /** The proxy's Prometheus endpoint. */
  metricsUrl: string;
  clusters: StackCluster[];
  /**
   * Registers another cluster whose API server is `kubeUrl` (any HTTP server standing in for
   * one), starts its agent and waits for the tunnel; `token` is an OPERATOR kubeconfig token.
   */
  addCluster(name: string, kubeUrl: string): Promise<{ id: string; agent: TunnelAgent; token: string }>;
  /** The bearer token of a kubeconfig downloaded by OPERATOR for `clusterId`. */
  proxyToken(clusterId: string): Promise<string>;
  /** A request to the proxy for `clusterId`, trusting its certificate (not yet ended). */
  proxyRequest(clusterId: string, path: string, token: string, method?: string): ClientRequest;
  /** GETs `path` through the proxy and resolves with the status (the body is drained). */
  proxyStatus(clusterId: string, path: string, token: string): Promise<number>;
  /** PUT or DELETE the switch: platform-wide, or for one cluster. */
  setSwitch(value: boolean | null, clusterId?: string): Promise<{ statusCode: number; body: Record<string, unknown> }>;
  startAgent(
    cluster: { id: string; agentToken: string; kube: Pick<KubeLite, 'url'> },
    token?: string,
    tunnelUrl?: string,
  ): Promise<TunnelAgent>;
  /**
   * Another proxy replica on the same database and API server (its own ports, the stack's
   * certificate), closed with the test unless the test closes it first.
   */
  startReplica(env?: Record<string, string>): Promise<Replica>;
}

/** A proxy replica started beside the stack's own. */
export interface Replica {
  proxy: ClusterProxy;
  url: string;
  tunnelUrl: string;
  metricsUrl: string;
  /** A request to this replica for `clusterId`, trusting its certificate (not yet ended). */
  request(clusterId: string, path: string, token: string, method?: string): ClientRequest;
}

export interface StackOptions {
  clusters?: number;
  apiEnv?: Record<string, string>;
  proxyEnv?: Record<string, string>;
  /** Wraps the proxy's database URL (to cut it). */
  proxyDatabaseUrl?: (url: string) => Promise<string>;
  /** Wraps the URL each agent reaches its kube-lite at (to stall it). */
  agentKubeUrl?: (url: string) => Promise<string>;
  /** The agents' KUBE_REQUEST_TIMEOUT. */
  kubeRequestTimeoutMs?: number;
  backoffMaxMs?: number;
  /**
   * The API server's port (default: any free one), for a URL it must know before it listens, such as
   * CONSOLE_PUBLIC_URL.
   */
  apiPort?: number;
}

const debug = process.env.TUNNEL_DEBUG === '1';
const say = (level: string) => (obj: object, msg: string) => {
  if (debug) console.error(`[agent ${level}] ${msg} ${JSON.stringify(obj)}`);
};
const quiet = { info: say('info'), warn: say('warn'), error: say('error') };

/**
 * A stand-in Kubernetes API server answering with `handler` on a free port, closed with the test; resolves with
 * its URL.
 */
export async function fakeApiServer(t: Test, handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** api-server, cluster-proxy, a kube-lite and a tunnel agent per cluster, all real and on free ports. */
export async function startStack(t: Test, options: StackOptions = {}): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'gsp-proxy-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const certificate = generateSelfSignedCertificate('gsp-cluster-proxy');
  writeFileSync(join(dir, 'proxy.crt'), certificate.cert);
  writeFileSync(join(dir, 'proxy.key'), certificate.key);

  const proxyPort = await freePort();
  const proxyUrl = `https://127.0.0.1:${proxyPort}`;
  const api = await build(t, { PROXY_PUBLIC_URL: proxyUrl, PROXY_CA_FILE: join(dir, 'proxy.crt'), ...options.apiEnv });
  const apiUrl = await api.app.listen({ port: options.apiPort ?? 0, host: '127.0.0.1' });
  await seedTenant(api.app, ORG, { [OPERATOR]: 'operator', viewer: 'viewer' });

  const proxyDb = options.proxyDatabaseUrl ? await options.proxyDatabaseUrl(api.databaseUrl) : api.databaseUrl;
  const proxy = await buildClusterProxy(
    loadConfig({
      DATABASE_URL: proxyDb,
      API_SERVER_URL: apiUrl,
      PORT: String(proxyPort),
      TUNNEL_PORT: '0',
      METRICS_PORT: '0',
      TLS_CERT_FILE: join(dir, 'proxy.crt'),
      TLS_KEY_FILE: join(dir, 'proxy.key'),
      HOST: '127.0.0.1',
      ...options.proxyEnv,
    }),
    debug ? { level: 'debug' } : false,
  );
  const { tunnelUrl, metricsUrl } = await proxy.listen();
  t.teardown(() => proxy.close());

  const launch = async (
    cluster: { id: string; agentToken: string; kube: Pick<KubeLite, 'url'> },
    token = cluster.agentToken,
    agentTunnelUrl = tunnelUrl,
  ): Promise<TunnelAgent> => {
    const kubeUrl = options.agentKubeUrl ? await options.agentKubeUrl(cluster.kube.url) : cluster.kube.url;
    const credentials = {
      token: 'agent-own-credential',
      clientCertFile: undefined,
      clientKeyFile: undefined,
      caFile: undefined,
      insecureSkipTlsVerify: false,
    };
    const kube = await kubeTarget({ url: kubeUrl, ...credentials }, options.kubeRequestTimeoutMs);
    const agent = startAgent({
      proxyTunnelUrl: agentTunnelUrl,
      clusterId: cluster.id,
      agentToken: token,
      kube,
      backoffInitialMs: 20,
      backoffMaxMs: options.backoffMaxMs ?? 200,
      backoffResetMs: 60_000,
      log: quiet,
    });
    t.teardown(async () => {
      await agent.stop();
      await kube.close();
    });
    return agent;
  };

  const proxyToken = async (clusterId: string): Promise<string> => {
    const res = await api.app.inject({
      url: `/api/v1/tenants/${ORG}/clusters/${clusterId}/kubeconfig`,
      headers: await bearer(OPERATOR),
    });
    if (res.statusCode !== 200) throw new Error(`kubeconfig: ${res.statusCode} ${res.body}`);
    return /token: "?([^"\s]+)"?/.exec(res.body)?.[1] ?? '';
  };
  const proxyRequest = (clusterId: string, path: string, token: string, method = 'GET'): ClientRequest =>
    https.request(`${proxyUrl}/clusters/${clusterId}${path}`, {
      method,
      ca: certificate.cert,
      agent: false,
      headers: { authorization: `Bearer ${token}` },
    });

  const startReplica = async (env: Record<string, string> = {}): Promise<Replica> => {
    const replica = await buildClusterProxy(
      loadConfig({
        DATABASE_URL: proxyDb,
        API_SERVER_URL: apiUrl,
        PORT: '0',
        TUNNEL_PORT: '0',
        METRICS_PORT: '0',
        TLS_CERT_FILE: join(dir, 'proxy.crt'),
        TLS_KEY_FILE: join(dir, 'proxy.key'),
        HOST: '127.0.0.1',
        ...options.proxyEnv,
        ...env,
      }),
      debug ? { level: 'debug' } : false,
    );
    const urls = await replica.listen();
    t.teardown(() => replica.close());
    return {
      proxy: replica,
      ...urls,
      request: (clusterId, path, token, method = 'GET') =>
        https.request(`${urls.url}/clusters/${clusterId}${path}`, {
          method,
          ca: certificate.cert,
          agent: false,
          headers: { authorization: `Bearer ${token}` },
        }),
    };
  };

  const clusters: StackCluster[] = [];
  for (let i = 0; i < (options.clusters ?? 1); i++) {
    const { id, agentToken } = await registerCluster(api.app, ORG, `c${i}`);
    const kube = await startKubeLite({ port: 0, stepMs: 20 });
    t.teardown(() => kube.close());
    const agent = await launch({ id, agentToken, kube });
    clusters.push({
      id,
      agentToken,
      kube,
      agent,
      async kubeconfig() {
        const res = await api.app.inject({
          url: `/api/v1/tenants/${ORG}/clusters/${id}/kubeconfig`,
          headers: await bearer(OPERATOR),
        });
        if (res.statusCode !== 200) throw new Error(`kubeconfig: ${res.statusCode} ${res.body}`);
        const path = join(dir, `${id}-${Date.now()}.yaml`);
        writeFileSync(path, res.body);
        return path;
      },
    });
  }

  return {
    api,
    apiUrl,
    proxy,
    proxyUrl,
    ca: certificate.cert,
    tunnelUrl,
    metricsUrl,
    clusters,
    startAgent: launch,
    startReplica,
    proxyToken,
    proxyRequest,
    async addCluster(name, kubeUrl) {
      const { id, agentToken } = await registerCluster(api.app, ORG, name);
      const agent = await launch({ id, agentToken, kube: { url: kubeUrl } });
      await until(`the agent of ${name} to connect`, () => (agent.connected ? true : undefined));
      return { id, agent, token: await proxyToken(id) };
    },
    proxyStatus: (clusterId, path, token) =>
      new Promise<number>((resolve, reject) => {
        const req = proxyRequest(clusterId, path, token);
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      }),
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
      return { statusCode: res.statusCode, body: res.json() };
    },
  };
}

/** The variables naming `cluster` to its agent. */
export const agentEnv = (cluster: { id: string; agentToken: string; kube: Pick<KubeLite, 'url'> }) => ({
  CLUSTER_ID: cluster.id,
  AGENT_TOKEN: cluster.agentToken,
  KUBE_API_URL: cluster.kube.url,
});

/** The agent as its process builds it, from `env` (quick backoff unless set), closed with the test. */
export async function startAgentApp(t: Test, env: Record<string, string>): Promise<AgentApp> {
  const config = loadAgentConfig({ AGENT_BACKOFF_INITIAL: '20ms', AGENT_BACKOFF_MAX: '100ms', ...env });
  const agent = await buildAgentApp(config, false);
  t.teardown(() => agent.close());
  return agent;
}

/** Ends `req` and resolves with its response. */
export function responseTo(req: ClientRequest): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
}

/** Collects a response's body as text; the function returns what has arrived so far. */
export function bodyOf(res: http.IncomingMessage): () => string {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (body += chunk));
  return () => body;
}

/**
 * Both processes on one Redis prefix; the proxy's caches live a minute, so only an event can explain a fast
 * refusal.
 */
export function startRedisStack(t: Test, extra: StackOptions = {}): Promise<Stack> {
  const redis = { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() };
  return startStack(t, {
    backoffMaxMs: 200,
    ...extra,
    apiEnv: { ...redis, ...extra.apiEnv },
    proxyEnv: { ...redis, SERVICE_CACHE_FLAGS_TTL: '60s', ...extra.proxyEnv },
  });
}

let kubectlPath: string | undefined;

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real kubectl 1.35 to completion (with a deadline). */
export function kubectl(
  kubeconfig: string,
  args: string[],
  input?: string,
  timeoutMs = 20_000,
): Promise<KubectlResult> {
  return kubectlProcess(kubeconfig, args, input, timeoutMs).done;
}

/** Starts kubectl and returns its live output and its completion. */
export function kubectlProcess(
  kubeconfig: string,
  args: string[],
  input?: string,
  timeoutMs = 20_000,
): { stdout: () => string; done: Promise<KubectlResult>; kill(): void; stdin: NodeJS.WritableStream } {
  kubectlPath ??= findKubectl({ searchPath: false });
  const child = spawn(kubectlPath, ['--kubeconfig', kubeconfig, '--request-timeout=0', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  if (input !== undefined) child.stdin.end(input);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<KubectlResult>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
  // Without `input`, stdin stays open for the test to write to (an interactive exec).
  return { stdout: () => stdout, done, kill: () => child.kill('SIGKILL'), stdin: child.stdin };
}

export { PLATFORM_ADMIN, bearer };
export type { TunnelAgent };
