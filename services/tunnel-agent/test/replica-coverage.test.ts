import t from 'tap';
import { startReplicas, until, untilHolding } from './replicas.js';
import type { Replica } from './replicas.js';

t.test('with three proxy replicas the agent holds one tunnel to each, and any replica serves kubectl', async (t) => {
  const setup = await startReplicas(t, 3);
  const started = Date.now();
  const agent = setup.agent();
  const ms = await untilHolding(agent, ['r1', 'r2', 'r3'], started);
  t.comment(`full coverage of 3 replicas ${ms} ms after the agent started`);
  t.equal(agent.target, 3, 'the replicas announced three');
  t.equal(agent.tunnels, 3, 'three tunnels, no more');
  for (const replica of setup.replicas) {
    const answer = await setup.kubectlGet(replica, '/api');
    t.equal(answer.status, 200, `kubectl through ${replica.id} is answered by the cluster`);
    t.equal(await replica.metric('gsp_proxy_tunnels'), 1, `${replica.id} holds one tunnel of the agent`);
  }
});

t.test('a dial that reaches a replica the agent holds is refused there before it registers', async (t) => {
  const setup = await startReplicas(t, 3);
  const [r1, r2, r3] = setup.replicas as [Replica, Replica, Replica];
  // The balancer sends every dial to r1 for now: after the first, each is a duplicate.
  setup.balancer.backend('r2').ready = false;
  setup.balancer.backend('r3').ready = false;
  const agent = setup.agent();
  await untilHolding(agent, ['r1']);
  const duplicates = async () => (await r1.metric('gsp_proxy_tunnel_connections_total', 'result="duplicate"')) ?? 0;
  await t.resolves(
    until('three duplicates refused', async () => ((await duplicates()) >= 3 ? true : undefined), 10_000, 50),
    'the agent dials again and again for the replicas it misses, each dial refused by r1 as a duplicate',
  );
  t.equal(
    await r1.metric('gsp_proxy_tunnel_connections_total', 'result="accepted"'),
    1,
    "r1 registered the agent's tunnel once: no duplicate replaced it",
  );
  t.equal(await r1.metric('gsp_proxy_tunnels'), 1, 'r1 holds one tunnel');
  t.equal(agent.lastError, undefined, 'a duplicate is not a failure');
  t.equal((await setup.kubectlGet(r1, '/api')).status, 200, 'kubectl through r1 works throughout');
  setup.balancer.backend('r2').ready = true;
  setup.balancer.backend('r3').ready = true;
  const ms = await untilHolding(agent, ['r1', 'r2', 'r3']);
  t.comment(`full coverage ${ms} ms after the balancer reached the other replicas`);
  t.equal(await r2.metric('gsp_proxy_tunnels'), 1);
  t.equal(await r3.metric('gsp_proxy_tunnels'), 1);
});

t.test('a replica that stops is let go, and the agent holds it again when it comes back', async (t) => {
  const setup = await startReplicas(t, 3);
  const [, r2] = setup.replicas as [Replica, Replica, Replica];
  const agent = setup.agent();
  await untilHolding(agent, ['r1', 'r2', 'r3']);
  setup.balancer.backend('r2').ready = false;
  t.equal((await r2.stop('SIGTERM')).code, 0, 'r2 stops cleanly');
  await untilHolding(agent, ['r1', 'r3']);
  await until('the agent to close nothing but its tunnel to r2', () => (agent.tunnels === 2 ? true : undefined));
  t.equal(agent.tunnels, 2, 'the tunnel to r2 is gone');
  const restartedAt = Date.now();
  await r2.start();
  setup.balancer.backend('r2').ready = true;
  const ready = Date.now() - restartedAt;
  const ms = await untilHolding(agent, ['r1', 'r2', 'r3'], restartedAt);
  t.comment(`full coverage again ${ms} ms after r2 was restarted (${ms - ready} ms after it was ready)`);
  t.equal((await setup.kubectlGet(r2, '/api')).status, 200, 'kubectl through the restarted r2 works');
});

t.test('a fourth replica is dialled when the replicas announce it, without restarting the agent', async (t) => {
  const setup = await startReplicas(t, 3);
  const agent = setup.agent();
  await untilHolding(agent, ['r1', 'r2', 'r3']);
  const startedAt = Date.now();
  const r4 = await setup.addReplica();
  const ready = Date.now() - startedAt;
  const ms = await untilHolding(agent, ['r1', 'r2', 'r3', 'r4'], startedAt);
  t.comment(`four tunnels ${ms} ms after r4 was started (${ms - ready} ms after it was ready)`);
  t.equal(agent.target, 4, 'the replicas announced four');
  t.equal((await setup.kubectlGet(r4, '/api')).status, 200, 'kubectl through r4 works');
});
