import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Test } from 'tap';
import { startKubeLite } from '@gsp/kube-lite';
import type { KubeLite } from '@gsp/kube-lite';
import { kubeTarget, startAgent } from '@gsp/tunnel-agent';
import type { AgentOptions, TunnelAgent } from '@gsp/tunnel-agent';
import { bearer, build, PLATFORM_ADMIN, registerCluster, seedTenant } from '@gsp/api-server/testing';
import type { Built } from '@gsp/api-server/testing';
import { debug, replicaSet } from '@gsp/test-kit/replicas';
import type { Balancer, BalancerOptions, Replica } from '@gsp/test-kit/replicas';
import { OPERATOR, ORG, redisPrefix, TEST_REDIS_URL, until } from '../stack.js';

/**
 * The cluster proxy's side of several replicas: test-kit's replica set (the replicas as processes,
 * started, stopped with SIGTERM or SIGKILL and restarted on the same ports, behind a TCP
 * round-robin balancer for kubectl and another for the agents, readiness probed as a Service
 * does), with the API server, a kube-lite and one tunnel agent in this process.
 */

export { until, ORG, OPERATOR };
export { request } from '@gsp/test-kit/replicas';
export type { Exit, Replica, Response } from '@gsp/test-kit/replicas';
/** A second operator of the tenant (still a member after OPERATOR is removed). */
export const OTHER_OPERATOR = 'oscar';

export interface ReplicaStackOptions {
  replicas?: number;
  /** Extra variables of every replica (PRESENCE_LEASE, TUNNEL_PING_INTERVAL, TUNNEL_WAIT, DRAIN_GRACE…). */
  proxyEnv?: Record<string, string>;
  /** Extra options of the agent (pingIntervalMs, syncIntervalMs, drainGraceMs…). */
  agentOptions?: Partial<AgentOptions> & Record<string, unknown>;
  tunnelBalancer?: BalancerOptions;
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
  const set = await replicaSet(t, {
    readinessProbe: true,
    ...(options.tunnelBalancer ? { tunnelBalancer: options.tunnelBalancer } : {}),
  });
  const { balancerUrl, ca, dir, kubectlBalancer, replicas, tunnelBalancer, tunnelUrl } = set;

  const redis = { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() };
  const api = await build(t, { PROXY_PUBLIC_URL: balancerUrl, PROXY_CA_FILE: set.certFile, ...redis });
  const apiUrl = await api.app.listen({ port: 0, host: '127.0.0.1' });
  await seedTenant(api.app, ORG, { [OPERATOR]: 'operator', [OTHER_OPERATOR]: 'operator', viewer: 'viewer' });
  const db = new pg.Pool({ connectionString: api.databaseUrl, max: 3 });
  t.teardown(() => db.end());

  await set.start(options.replicas ?? 3, {
    DATABASE_URL: api.databaseUrl,
    API_SERVER_URL: apiUrl,
    ...redis,
    // Only an event can explain a fast refusal or a fast switch.
    SERVICE_CACHE_FLAGS_TTL: '60s',
    ...options.proxyEnv,
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
    addReplica: () => set.addReplica(),
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
    tunnelGauges: () => set.tunnelGauges(),
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
