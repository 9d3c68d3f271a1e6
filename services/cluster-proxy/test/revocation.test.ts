import t from 'tap';
import { Code } from '@connectrpc/connect';
import {
  bearer,
  kubectl,
  ORG,
  OPERATOR,
  PLATFORM_ADMIN,
  redisPrefix,
  startRedisStack,
  startStack,
  TEST_REDIS_URL,
  until,
} from './stack.js';
import type { Stack, TunnelAgent } from './stack.js';
import { runningWatch, within } from './workload.js';

/** Waits until `agent` has tried again and failed. */
async function nextFailure(agent: TunnelAgent, what: string): Promise<void> {
  const attempts = agent.attempts;
  await until(what, () => (agent.attempts > attempts ? agent.lastError : undefined), 5000);
}

async function api(stack: Stack, method: 'PUT' | 'DELETE' | 'POST', url: string, payload?: object) {
  return stack.api.app.inject({ method, url, headers: await bearer(PLATFORM_ADMIN), ...(payload ? { payload } : {}) });
}

for (const [change, act] of [
  ['removing', (stack: Stack) => api(stack, 'DELETE', `/api/v1/tenants/${ORG}/members/${OPERATOR}`)],
  [
    'downgrading to viewer',
    (stack: Stack) => api(stack, 'PUT', `/api/v1/tenants/${ORG}/members/${OPERATOR}`, { role: 'viewer' }),
  ],
] as const) {
  t.test(`${change} a member refuses their downloaded kubeconfig within 1 s and ends their watch`, async (t) => {
    const stack = await startRedisStack(t);
    const [a] = stack.clusters as [Stack['clusters'][0]];
    await until('the agent to connect', () => (a.agent.connected ? true : undefined));
    const kubeconfig = await a.kubeconfig();
    const token = await stack.proxyToken(a.id);
    const watch = await runningWatch(t, kubeconfig);
    t.equal(await stack.proxyStatus(a.id, '/api/v1/namespaces', token), 200, 'the kubeconfig works before');

    const res = await act(stack);
    t.ok(res.statusCode < 300, `the change is accepted (${res.statusCode})`);
    const changedAt = Date.now();
    await until(
      'the refusal',
      async () => ((await stack.proxyStatus(a.id, '/api/v1/namespaces', token)) === 403 ? true : undefined),
      1000,
    );
    t.comment(`refused ${Date.now() - changedAt} ms after the change`);
    const ended = await within(1000, watch.done);
    t.ok(ended, 'the running kubectl get -w ended within 1 s');
    t.match(
      ended?.stdout,
      new RegExp(`ERROR\\s+Failure\\s+Forbidden\\s+${OPERATOR} no longer holds admin or operator in tenant ${ORG}`),
      'and printed why',
    );

    const refused = await kubectl(kubeconfig, ['get', 'namespaces']);
    t.not(refused.code, 0);
    t.match(refused.stderr, `${OPERATOR} no longer holds admin or operator in tenant ${ORG}`, 'kubectl prints why');
    t.ok(a.agent.connected, 'the tunnel itself stays: other members still use it');
  });
}

t.test('a member given the operator role back can use a new kubeconfig at once', async (t) => {
  const stack = await startRedisStack(t);
  const [a] = stack.clusters as [Stack['clusters'][0]];
  await until('the agent to connect', () => (a.agent.connected ? true : undefined));
  const token = await stack.proxyToken(a.id);
  await api(stack, 'PUT', `/api/v1/tenants/${ORG}/members/${OPERATOR}`, { role: 'viewer' });
  await until(
    'the refusal',
    async () => ((await stack.proxyStatus(a.id, '/api/v1/namespaces', token)) === 403 ? true : undefined),
    1000,
  );
  await api(stack, 'PUT', `/api/v1/tenants/${ORG}/members/${OPERATOR}`, { role: 'operator' });
  await until(
    'access again',
    async () => ((await stack.proxyStatus(a.id, '/api/v1/namespaces', token)) === 200 ? true : undefined),
    1000,
  );
});

t.test(
  'without Redis, a removed member is refused within the cache TTL and their watch ends after one more sweep',
  async (t) => {
    // The API server publishes on Redis; the proxy does not listen there, so only its TTL can help.
    const stack = await startStack(t, {
      apiEnv: { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() },
      proxyEnv: { SERVICE_CACHE_FLAGS_TTL: '1s', TUNNEL_WATCH_INTERVAL: '200ms' },
    });
    const [a] = stack.clusters as [Stack['clusters'][0]];
    await until('the agent to connect', () => (a.agent.connected ? true : undefined));
    const kubeconfig = await a.kubeconfig();
    const token = await stack.proxyToken(a.id);
    const watch = await runningWatch(t, kubeconfig);
    t.equal((await api(stack, 'DELETE', `/api/v1/tenants/${ORG}/members/${OPERATOR}`)).statusCode, 204);
    const removedAt = Date.now();
    await until(
      'the refusal',
      async () => ((await stack.proxyStatus(a.id, '/api/v1/namespaces', token)) === 403 ? true : undefined),
      2000,
    );
    t.ok(Date.now() - removedAt < 1500, `refused within the 1 s TTL (${Date.now() - removedAt} ms)`);
    t.ok(await within(2000, watch.done), 'the watch ended');
  },
);

t.test('deleting a cluster closes its tunnel and refuses kubectl at once; its agent is refused', async (t) => {
  const stack = await startRedisStack(t, { clusters: 2 });
  const [a, b] = stack.clusters as [Stack['clusters'][0], Stack['clusters'][0]];
  await until('both agents to connect', () => (a.agent.connected && b.agent.connected ? true : undefined));
  const kubeconfig = await a.kubeconfig();
  const token = await stack.proxyToken(a.id);
  const watch = await runningWatch(t, kubeconfig);

  t.equal((await api(stack, 'DELETE', `/api/v1/tenants/${ORG}/clusters/${a.id}`)).statusCode, 204);
  const deletedAt = Date.now();
  await until('the tunnel to close', () => (!a.agent.connected ? true : undefined), 1000);
  t.equal(await stack.proxyStatus(a.id, '/api/v1/namespaces', token), 404, 'kubectl is refused');
  t.comment(`tunnel closed and kubectl refused ${Date.now() - deletedAt} ms after the delete`);
  const ended = await within(1000, watch.done);
  t.ok(ended, 'the running watch ended');
  t.match(
    ended?.stdout,
    new RegExp(`ERROR\\s+Failure\\s+NotFound\\s+cluster ${a.id} was deleted from the platform`),
    'and printed why',
  );
  const refused = await kubectl(kubeconfig, ['get', 'namespaces']);
  t.match(refused.stderr, `cluster ${a.id} no longer exists`);

  await nextFailure(a.agent, 'the agent to retry and be refused');
  t.equal(a.agent.lastError?.code, Code.Unauthenticated, 'its reconnects are refused');
  t.notOk(a.agent.connected);
  t.ok(b.agent.connected, 'the other cluster keeps its tunnel');
  t.equal(await stack.proxyStatus(b.id, '/api/v1/namespaces', await stack.proxyToken(b.id)), 200);
});

t.test(
  'rotating the agent token answers a new token once, closes the old tunnel and refuses the old token',
  async (t) => {
    const stack = await startRedisStack(t);
    const [a] = stack.clusters as [Stack['clusters'][0]];
    await until('the agent to connect', () => (a.agent.connected ? true : undefined));

    const viewer = await stack.api.app.inject({
      method: 'POST',
      url: `/api/v1/tenants/${ORG}/clusters/${a.id}/agent-token`,
      headers: await bearer('viewer'),
    });
    t.equal(viewer.statusCode, 403, 'a viewer may not rotate');
    const res = await api(stack, 'POST', `/api/v1/tenants/${ORG}/clusters/${a.id}/agent-token`);
    t.equal(res.statusCode, 200);
    const { agentToken, id } = res.json();
    t.equal(id, a.id);
    t.match(agentToken, /^gspat_[\w-]{43}$/);
    t.not(agentToken, a.agentToken);
    t.equal(res.headers['cache-control'], 'no-store');

    await until('the old tunnel to close', () => (!a.agent.connected ? true : undefined), 1000);
    await nextFailure(a.agent, 'the old agent to retry and be refused');
    t.equal(a.agent.lastError?.code, Code.Unauthenticated, 'the old token no longer opens a tunnel');
    await a.agent.stop();

    const renewed = await stack.startAgent({ id: a.id, agentToken, kube: a.kube });
    await until('the agent with the new token to connect', () => (renewed.connected ? true : undefined));
    t.equal(
      await stack.proxyStatus(a.id, '/api/v1/namespaces', await stack.proxyToken(a.id)),
      200,
      'kubectl works through the new tunnel',
    );
    const audit = await stack.api.app.inject({ url: '/api/v1/platform/audit', headers: await bearer(PLATFORM_ADMIN) });
    t.match(
      audit.json(),
      { items: [{ action: 'clusters.agent_token.rotated', actor: PLATFORM_ADMIN, resource: `cluster:${a.id}` }] },
      'the rotation is audited',
    );
  },
);
