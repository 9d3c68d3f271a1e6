import t from 'tap';
import type { Test } from 'tap';
import { kubectl } from '../stack.js';
import { POLICY } from '../workload.js';
import { request, startReplicaStack, until, untilEveryReplica } from './harness.js';
import type { Replica } from './harness.js';

// Issue 24, acceptance 2: the kill switch holds on every replica; back on, the agent restores every
// tunnel by itself, and a kubectl request sent at that moment waits for its tunnel instead of a 502.
t.setTimeout(100_000);

const stack = await startReplicaStack(t, { replicas: 3 });
const ids = stack.replicas.map((r) => r.id);
const { id: clusterId } = stack.cluster;
const namespacesAt = (replica: Replica) =>
  request(stack.clusterUrl('/api/v1/namespaces', replica.url), { ca: stack.ca, token: stack.token });

/** Turns the switch off with `off`, checks every replica, turns it on with `on` and checks the way back. */
async function offAndOn(
  t: Test,
  off: () => Promise<number>,
  on: () => Promise<number>,
  scope: 'the whole platform' | 'this cluster',
): Promise<void> {
  await stack.untilHeldBy(ids, 20_000);
  t.same(await stack.tunnelGauges(), { r1: 1, r2: 1, r3: 1 }, 'each replica holds a tunnel before');

  const offAt = Date.now();
  t.equal(await off(), 200, 'the switch is turned off');
  const refusing = await untilEveryReplica(
    stack.replicas,
    'every replica to answer 410',
    async (r) => (await namespacesAt(r)).status === 410,
    1000,
    offAt,
  ).catch((err: Error) => (t.fail(err.message), {}));
  t.comment(`410 from each replica after (ms): ${JSON.stringify(refusing)}`);
  const closed = await until(
    'every replica to close its tunnel',
    async () => {
      const gauges = await stack.tunnelGauges();
      return Object.values(gauges).every((n) => n === 0) ? Date.now() - offAt : undefined;
    },
    1000,
    10,
  ).catch(async () => {
    t.fail('every replica closed its tunnel within 1 s', { gauges: await stack.tunnelGauges() });
    return -1;
  });
  t.comment(`every replica's live tunnels at 0 ${closed} ms after the switch`);
  t.ok(closed >= 0 && closed <= 1000, 'the live tunnels are closed on all three replicas within 1 s');
  for (const replica of stack.replicas) {
    const res = await namespacesAt(replica);
    t.equal(res.status, 410, `${replica.id} answers 410`);
    t.match(res.body, `${POLICY} for cluster ${clusterId}: set by a platform admin for ${scope}`, 'with why');
  }
  const refused = await kubectl(stack.kubeconfig, ['get', 'namespaces']);
  t.not(refused.code, 0, 'kubectl over the balancer fails');
  t.match(refused.stderr, POLICY, 'and prints the policy');
  await until('the presence rows to go', async () => ((await stack.held()).length === 0 ? true : undefined), 2000);
  t.notOk(stack.agent.connected, 'the agent holds no tunnel');

  // The agent is refused while the switch is off: it is somewhere in its backoff when it turns on.
  const attempts = stack.agent.attempts;
  await until('the agent to be refused again', () => (stack.agent.attempts > attempts + 1 ? true : undefined), 5000);

  const onAt = Date.now();
  t.equal(await on(), 200, 'the switch is turned back on');
  t.comment(`the API took ${Date.now() - onAt} ms to turn it on`);
  // Requests go at once, straight to every replica and through the balancer with the real kubectl,
  // again and again while the replica has not yet heard of the change (410): the first answer
  // after that comes while the agent is still in its backoff, and must wait for the tunnel.
  const firstAnswer = async <T>(send: () => Promise<T>, refused: (answer: T) => boolean) => {
    let refusals = 0;
    for (;;) {
      const sent = Date.now();
      const answer = await send();
      if (!refused(answer) || Date.now() - onAt > 5000)
        return { answer, refusals, at: Date.now() - onAt, took: Date.now() - sent };
      refusals++;
    }
  };
  const [direct, viaKubectl] = await Promise.all([
    Promise.all(
      stack.replicas.map((r) =>
        firstAnswer(
          () => namespacesAt(r),
          (res) => res.status === 410,
        ),
      ),
    ),
    firstAnswer(
      () => kubectl(stack.kubeconfig, ['get', 'namespaces', '-o', 'name']),
      (res) => res.stderr.includes(POLICY),
    ),
  ]);
  stack.replicas.forEach((r, i) => {
    const { answer, refusals, at, took } = direct[i]!;
    t.equal(answer.status, 200, `the first answer from ${r.id} after it heard the switch is on is a success`, {
      body: answer.body.slice(0, 300),
    });
    t.comment(
      `${r.id}: ${refusals} request(s) still refused 410; then ${answer.status} at ${at} ms, which took ${took} ms`,
    );
  });
  t.equal(viaKubectl.answer.code, 0, 'kubectl over the balancer succeeds as soon as the policy is lifted', {
    stderr: viaKubectl.answer.stderr,
  });
  t.comment(
    `kubectl: ${viaKubectl.refusals} run(s) still refused; then exit ${viaKubectl.answer.code} at ${viaKubectl.at} ms`,
  );
  const restored = await stack.untilHeldBy(ids, 10_000, onAt);
  t.comment(`the agent held a tunnel to each replica again ${restored} ms after the switch turned on`);
  t.same(await stack.tunnelGauges(), { r1: 1, r2: 1, r3: 1 }, 'each replica holds a tunnel again');
}

t.test('platform off closes the tunnels on every replica, which all answer 410; back on, all return', (t) =>
  offAndOn(
    t,
    () => stack.setSwitch(false),
    () => stack.setSwitch(null),
    'the whole platform',
  ),
);

t.test('one cluster off closes its tunnels on every replica, which all answer 410; back on, all return', (t) =>
  offAndOn(
    t,
    () => stack.setSwitch(false, clusterId),
    () => stack.setSwitch(null, clusterId),
    'this cluster',
  ),
);
