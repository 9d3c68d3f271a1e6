import t from 'tap';
import type { Test } from 'tap';
import { bearer, cuttableDatabaseUrl, kubectl, ORG, OPERATOR, startStack, until } from './stack.js';
import { POLICY, works } from './workload.js';

t.test('pinned with SERVICE_CLI_ACCESS_ENABLED=true on both, a PUT of false is accepted but inert', async (t) => {
  const pin = { SERVICE_CLI_ACCESS_ENABLED: 'true' };
  const stack = await startStack(t, { apiEnv: pin, proxyEnv: pin });
  const [a] = stack.clusters;
  await until('the agent to connect', () => (a!.agent.connected ? true : undefined));
  const kubeconfig = await a!.kubeconfig();

  const put = await stack.setSwitch(false);
  t.equal(put.statusCode, 200);
  t.match(put.body, { envPinned: true });
  const access = await stack.api.app.inject({
    url: `/api/v1/tenants/${ORG}/clusters/${a!.id}/access`,
    headers: await bearer(OPERATOR),
  });
  t.match(access.json(), { cliAccess: { enabled: true, envPinned: true } });

  await stack.proxy.sweep();
  t.ok(a!.agent.connected, 'the tunnel stays up');
  t.ok(await works(kubeconfig), 'kubectl keeps working');
});

t.test(
  'pinned off with SERVICE_CLI_ACCESS_ENABLED=false on the proxy, kubectl hears that the pin decided',
  async (t) => {
    const stack = await startStack(t, { proxyEnv: { SERVICE_CLI_ACCESS_ENABLED: 'false' } });
    const [a] = stack.clusters;
    const refused = await kubectl(await a!.kubeconfig(), ['get', 'namespaces']);
    t.not(refused.code, 0);
    t.match(refused.stderr, `${POLICY} for cluster ${a!.id}: pinned by SERVICE_CLI_ACCESS_ENABLED on the proxy`);
  },
);

/** A stack in stale mode `mode` whose proxy reaches the flag store through a relay, with kubectl working. */
async function staleModeStack(t: Test, mode: 'strict' | 'best_effort') {
  let link: Awaited<ReturnType<typeof cuttableDatabaseUrl>> | undefined;
  const stack = await startStack(t, {
    proxyEnv: { SERVICE_CLI_ACCESS_STALE_MODE: mode, SERVICE_CACHE_FLAGS_TTL: '100ms' },
    proxyDatabaseUrl: async (url) => (link = await cuttableDatabaseUrl(t, url)).url,
  });
  const a = stack.clusters[0]!;
  await until('the agent to connect', () => (a.agent.connected ? true : undefined));
  const kubeconfig = await a.kubeconfig();
  t.ok(await works(kubeconfig));
  return { stack, a, kubeconfig, link: link! };
}

t.test('strict stale mode treats an unreadable flag store as off', async (t) => {
  const { a, kubeconfig, link } = await staleModeStack(t, 'strict');

  link.cut();
  // The rights cache shares the flags' 100 ms TTL but was filled a moment earlier: for that moment a
  // request finds the switch still known and its rights not (503, "cannot be checked right now"), and
  // one admitted just before can lose its tunnel to the watcher. What must follow is the policy.
  const refused = await until(
    'kubectl to be refused by policy',
    async () => {
      const res = await kubectl(kubeconfig, ['get', 'namespaces']);
      return res.code !== 0 && res.stderr.includes(POLICY) ? res : undefined;
    },
    10_000,
    50,
  );
  t.match(refused.stderr, 'strict');
  await until('the watcher to close the tunnel', () => (!a.agent.connected ? true : undefined), 5000);

  link.restore();
  await until('the agent to reconnect once the store is back', () => (a.agent.connected ? true : undefined), 10_000);
  await until('kubectl to work again', () => works(kubeconfig), 5000, 50);
});

t.test('best_effort stale mode keeps serving the last known value', async (t) => {
  const { stack, a, kubeconfig, link } = await staleModeStack(t, 'best_effort');

  link.cut();
  const deadline = Date.now() + 1500;
  let runs = 0;
  while (Date.now() < deadline) {
    const res = await kubectl(kubeconfig, ['get', 'namespaces']);
    t.equal(res.code, 0, res.stderr);
    runs++;
  }
  await stack.proxy.sweep();
  t.ok(a.agent.connected, `the tunnel stays up (${runs} kubectl runs while the store was unreachable)`);
});
