import t from 'tap';
import type { Test } from 'tap';
import { Code } from '@connectrpc/connect';
import { bearer, kubectl, ORG, OPERATOR, startRedisStack, until } from './stack.js';
import type { Stack } from './stack.js';
import { POLICY, runningWatch, within, works } from './workload.js';

const redisStack = (t: Test) => startRedisStack(t, { clusters: 2, backoffMaxMs: 300 });

async function access(stack: Stack, id: string): Promise<{ enabled: boolean; envPinned: boolean }> {
  const res = await stack.api.app.inject({
    url: `/api/v1/tenants/${ORG}/clusters/${id}/access`,
    headers: await bearer(OPERATOR),
  });
  return res.json().cliAccess;
}

async function downloadStatus(stack: Stack, id: string): Promise<number> {
  const res = await stack.api.app.inject({
    url: `/api/v1/tenants/${ORG}/clusters/${id}/kubeconfig`,
    headers: await bearer(OPERATOR),
  });
  return res.statusCode;
}

t.test(
  'turning the switch off platform-wide cuts kubectl, the watch and the tunnel; turning it on restores them',
  async (t) => {
    const stack = await redisStack(t);
    const [a, b] = stack.clusters as [Stack['clusters'][0], Stack['clusters'][0]];
    await until('both agents to connect', () => (a.agent.connected && b.agent.connected ? true : undefined));
    const kubeconfigA = await a.kubeconfig();
    const kubeconfigB = await b.kubeconfig();

    const watch = await runningWatch(t, kubeconfigA);

    const put = await stack.setSwitch(false);
    t.equal(put.statusCode, 200);

    const ended = await within(5000, watch.done);
    t.ok(ended, 'the running kubectl get -w ended');
    // kube-apiserver's way: a watch event of type ERROR carrying the Status, which kubectl prints.
    t.match(
      ended?.stdout,
      new RegExp(
        'ERROR\\s+Failure\\s+Gone\\s+CLI access is disabled by platform policy for cluster \\S+: ' +
          'set by a platform admin for the whole platform',
      ),
      'the watch printed why it ended',
    );
    await until('the agents to lose their tunnels', () =>
      !a.agent.connected && !b.agent.connected ? true : undefined,
    );

    const refused = await kubectl(kubeconfigA, ['get', 'namespaces']);
    t.not(refused.code, 0);
    t.match(refused.stderr, POLICY, 'kubectl prints the policy message');
    t.match(
      refused.stderr,
      `${POLICY} for cluster ${a.id}: set by a platform admin for the whole platform`,
      'and that the platform value decided',
    );
    t.equal(await downloadStatus(stack, a.id), 410);
    t.match(await access(stack, a.id), { enabled: false });

    const attempts = a.agent.attempts;
    await until('the agent to retry and be refused', () => (a.agent.attempts > attempts + 1 ? true : undefined), 5000);
    t.equal(a.agent.lastError?.code, Code.Unavailable, 'reconnects are rejected with unavailable');
    t.match(a.agent.lastError?.rawMessage, POLICY);
    t.notOk(a.agent.connected);

    t.equal((await stack.setSwitch(true)).statusCode, 200);
    await until(
      'the agents to reconnect by themselves',
      () => (a.agent.connected && b.agent.connected ? true : undefined),
      3000,
    );
    await until('kubectl to work again', () => works(kubeconfigA), 3000, 50);
    await until('kubectl to work again on the other cluster', () => works(kubeconfigB), 3000, 50);
    t.match(await access(stack, a.id), { enabled: true });
  },
);

t.test('turning the switch off for one cluster leaves the others working', async (t) => {
  const stack = await redisStack(t);
  const [a, b] = stack.clusters as [Stack['clusters'][0], Stack['clusters'][0]];
  await until('both agents to connect', () => (a.agent.connected && b.agent.connected ? true : undefined));
  const kubeconfigA = await a.kubeconfig();
  const kubeconfigB = await b.kubeconfig();
  // Without --output-watch-events, as most people run it.
  const watch = await runningWatch(t, kubeconfigA, []);

  t.equal((await stack.setSwitch(false, a.id)).statusCode, 200);
  await until('the tunnel of that cluster to close', () => (!a.agent.connected ? true : undefined));
  const ended = await within(5000, watch.done);
  t.match(
    ended?.stdout,
    new RegExp(`Failure\\s+Gone\\s+${POLICY} for cluster ${a.id}: set by a platform admin for this cluster`),
    'the watch printed why it ended',
  );
  const refused = await kubectl(kubeconfigA, ['get', 'namespaces']);
  t.match(
    refused.stderr,
    `${POLICY} for cluster ${a.id}: set by a platform admin for this cluster`,
    'kubectl hears that the cluster override decided',
  );
  t.equal(await downloadStatus(stack, a.id), 410);
  t.match(await access(stack, a.id), { enabled: false });

  t.ok(b.agent.connected, 'the other agent stays connected');
  t.ok(await works(kubeconfigB), 'kubectl works on the other cluster');
  t.equal(await downloadStatus(stack, b.id), 200);
  t.match(await access(stack, b.id), { enabled: true });

  t.equal((await stack.setSwitch(null, a.id)).statusCode, 200);
  await until('the agent to reconnect', () => (a.agent.connected ? true : undefined), 3000);
  await until('kubectl to work again', () => works(kubeconfigA), 3000, 50);
});

t.test('a cluster without a connected agent answers 502 with a clear message', async (t) => {
  const stack = await redisStack(t);
  const [a] = stack.clusters;
  await until('the agent to connect', () => (a!.agent.connected ? true : undefined));
  const kubeconfig = await a!.kubeconfig();
  await a!.agent.stop();
  await until('the tunnel to go', () => (stack.proxy.registry.get(a!.id) === undefined ? true : undefined));
  const res = await kubectl(kubeconfig, ['get', 'namespaces']);
  t.not(res.code, 0);
  t.match(res.stderr, 'has no connected tunnel agent');
});

t.test('an agent with a wrong token is refused as unauthenticated', async (t) => {
  const stack = await redisStack(t);
  const [a] = stack.clusters;
  const impostor = await stack.startAgent(a!, 'gspat_wrong');
  await until('the refusal', () => impostor.lastError);
  t.equal(impostor.lastError?.code, Code.Unauthenticated);
  t.notOk(impostor.connected);
});
