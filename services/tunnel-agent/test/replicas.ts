import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';
import { bearer, build, registerCluster, seedTenant, until } from '@gsp/api-server/testing';
import { debug, replicaSet, request } from '@gsp/test-kit/replicas';
import type { Balancer, Replica, Response } from '@gsp/test-kit/replicas';
import { kubeTarget } from '../src/kube.js';
import { startAgent } from '../src/agent/agent.js';
import type { AgentOptions, TunnelAgent } from '../src/agent/agent.js';

/**
 * The agent's side of several replicas: test-kit's replica set (real cluster-proxy processes on one
 * database behind a TCP round-robin balancer), the API server, a stand-in Kubernetes API and
 * agents of this package.
 */

export { until };
export { freePort, request } from '@gsp/test-kit/replicas';
export type { Replica } from '@gsp/test-kit/replicas';

const ORG = 'acme';
const OPERATOR = 'olivia';

export interface ReplicaSetup {
  replicas: Replica[];
  /** The agents' balancer: a replica gets tunnels while its backend is `ready`. */
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
  kubectlGet(replica: Replica, path: string): Promise<Response>;
  /** The operator's bearer token for the cluster, and the CA the replicas' certificate is trusted by. */
  token: string;
  ca: string;
}

/** A stand-in Kubernetes API that answers `/api` at once and `/slow?ms=N` after N ms; resolves with its URL. */
async function stubKubeApi(t: Test, seen: string[]): Promise<string> {
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
  return `http://127.0.0.1:${(kubeApi.address() as AddressInfo).port}`;
}

/** `count` replicas behind the balancer, started and ready, with the API server and a stand-in Kubernetes API. */
export async function startReplicas(
  t: Test,
  count: number,
  proxyEnv: Record<string, string> = {},
): Promise<ReplicaSetup> {
  const set = await replicaSet(t);
  const { ca, tunnelUrl } = set;
  const api = await build(t, { PROXY_PUBLIC_URL: set.balancerUrl, PROXY_CA_FILE: set.certFile });
  const apiUrl = await api.app.listen({ port: 0, host: '127.0.0.1' });
  await seedTenant(api.app, ORG, { [OPERATOR]: 'operator' });
  const { id: clusterId, agentToken } = await registerCluster(api.app, ORG, 'arena');
  const kubeconfig = await api.app.inject({
    url: `/api/v1/tenants/${ORG}/clusters/${clusterId}/kubeconfig`,
    headers: await bearer(OPERATOR),
  });
  const token = /token: "?([^"\s]+)"?/.exec(kubeconfig.body)?.[1] ?? '';

  const seen: string[] = [];
  const kubeUrl = await stubKubeApi(t, seen);
  const kube = await kubeTarget({
    url: kubeUrl,
    token: 'agent-own-credential',
    clientCertFile: undefined,
    clientKeyFile: undefined,
    caFile: undefined,
    insecureSkipTlsVerify: false,
  });
  t.teardown(() => kube.close());

  await set.start(count, { DATABASE_URL: api.databaseUrl, API_SERVER_URL: apiUrl, ...proxyEnv });

  const say = (level: string) => (obj: object, msg: string) => {
    if (debug) console.error(`[agent ${level}] ${msg} ${JSON.stringify(obj)}`);
  };
  return {
    replicas: set.replicas,
    balancer: set.tunnelBalancer,
    tunnelUrl,
    clusterId,
    seen,
    addReplica: () => set.addReplica(),
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
    kubectlGet: (replica, path) => request(`${replica.url}/clusters/${clusterId}${path}`, { ca, token }),
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
