import t from 'tap';
import { request, startReplicaStack, until } from './harness.js';
import type { Replica } from './harness.js';
import { startLoad, summary } from './load.js';

// Issue 24, acceptance 3: a replica killed without a goodbye; the agent notices by its pings, the
// dead replica's records expire, and a fourth replica is picked up without restarting the agent.
t.setTimeout(100_000);

const PING_MS = 1000;
const LEASE_MS = 1500;
const stack = await startReplicaStack(t, {
  replicas: 3,
  proxyEnv: { PRESENCE_LEASE: `${LEASE_MS}ms`, TUNNEL_PING_INTERVAL: `${PING_MS}ms` },
  agentOptions: { pingIntervalMs: PING_MS },
});
const ids = stack.replicas.map((r) => r.id);
const agentTarget = (): number => stack.agent.target;

t.test('SIGKILL of one replica: the others serve, the agent notices by its pings, the records expire', async (t) => {
  const [victim, ...others] = stack.replicas as [Replica, Replica, Replica];
  const survivors = others.map((r) => r.id);
  await stack.untilHeldBy(ids, 20_000);
  const running = startLoad({
    url: stack.clusterUrl('/api/v1/namespaces'),
    ca: stack.ca,
    token: stack.token,
    concurrency: 4,
    kubeconfig: stack.kubeconfig,
  });
  await until('the load to run', () => (running.result.ok >= 30 ? true : undefined), 15_000);

  // A machine that vanishes sends no FIN or RST: the agent's side of its tunnel goes silent.
  stack.tunnelBalancer.onBackendLoss = 'blackhole';
  const killedAt = Date.now();
  await victim.stop('SIGKILL');
  const lease = await stack.db.query<{ until: Date }>(
    'SELECT expires_at AS until FROM proxy_replicas WHERE replica_id = $1',
    [victim.id],
  );
  const leaseLeft = (lease.rows[0]?.until.getTime() ?? Infinity) - killedAt;
  // A renewal sent just before the kill may still commit just after it (now() is its start at the database).
  t.ok(leaseLeft <= LEASE_MS + 150, `its proxy_replicas row runs out ${leaseLeft} ms after the kill`);
  const noticed = await until(
    "the agent to drop its tunnel to the dead replica (the balancer sees the agent's side close)",
    () => (stack.tunnelBalancer.backend(victim.id).live.size === 0 ? Date.now() - killedAt : undefined),
    3 * PING_MS + 1000,
    5,
  ).catch(() => -1);
  stack.tunnelBalancer.onBackendLoss = 'close';
  t.comment(`the agent closed its silent tunnel ${noticed} ms after the kill (ping interval ${PING_MS} ms)`);
  t.ok(noticed >= 0 && noticed <= PING_MS + 300, "within its ping interval (and the timers' slack)");
  t.same(stack.agent.replicas, survivors, `the agent no longer counts ${victim.id}`);

  for (const replica of others) {
    const res = await request(stack.clusterUrl('/api/v1/namespaces', replica.url), {
      ca: stack.ca,
      token: stack.token,
    });
    t.equal(res.status, 200, `${replica.id} still serves the cluster`);
  }

  const expired = await until(
    "the dead replica's tunnel record to expire",
    async () => ((await stack.held()).join() === survivors.join() ? Date.now() - killedAt : undefined),
    LEASE_MS + 2000,
    20,
  ).catch(() => -1);
  t.comment(`its agent_tunnels row was gone ${expired} ms after the kill (lease ${LEASE_MS} ms, sweep 1 s)`);
  t.ok(expired >= 0, 'the dead replica no longer holds the cluster in agent_tunnels');
  const uncounted = await until(
    'the dead replica to leave the count',
    async () => ((await stack.counted())?.join() === survivors.join() ? Date.now() - killedAt : undefined),
    LEASE_MS + 1000,
    20,
  ).catch(() => -1);
  t.comment(`proxy_replicas counted the two survivors ${uncounted} ms after the kill`);
  t.ok(uncounted >= 0, 'its proxy_replicas row expired and the survivors alone are counted');
  await until('the agent to aim for two', () => (agentTarget() === 2 ? true : undefined), 3000)
    .then(() => t.pass('the agent aims for the two replicas left'))
    .catch(() => t.fail('the agent aims for the two replicas left', { target: agentTarget() }));

  const okAfterKill = running.result.ok;
  await until('more calls', () => (running.result.ok >= okAfterKill + 30 ? true : undefined), 15_000);
  const result = await running.stop();
  t.comment(summary(result));
  const late = result.failures.filter((f) => result.startedAt + f.startedMs >= killedAt);
  const inFlight = result.failures.length - late.length;
  t.comment(`${inFlight} call(s) in flight at the kill failed; the kill was at ${killedAt - result.startedAt} ms`);
  t.equal(late.length, 0, 'no call sent after the kill failed', {
    failures: late.slice(0, 5).map((f) => `${f.startedMs}-${f.endedMs} ms: ${f.what}`),
  });
});

t.test('scaling from 3 to 4 replicas is noticed by the running agent', async (t) => {
  const [victim] = stack.replicas as [Replica];
  const agent = stack.agent;
  const restarted = Date.now();
  await victim.start();
  const back = await stack.untilHeldBy(ids, 15_000, restarted);
  t.comment(`the killed replica restarted: held again ${back} ms after the restart began`);

  const scaled = Date.now();
  const fourth = await stack.addReplica();
  const ready = Date.now() - scaled;
  const covered = await stack.untilHeldBy([...ids, fourth.id], 15_000, scaled);
  t.comment(`a fourth replica: ready after ${ready} ms, held by the agent ${covered} ms after it was started`);
  t.equal(stack.agent, agent, 'the same agent, never restarted');
  t.equal(agentTarget(), 4, 'which now aims for four');
  t.same(stack.agent.replicas, [...ids, fourth.id], 'and holds all four');
  t.same(await stack.tunnelGauges(), { r1: 1, r2: 1, r3: 1, r4: 1 }, 'each of the four reports one tunnel');
  const res = await request(stack.clusterUrl('/api/v1/namespaces', fourth.url), { ca: stack.ca, token: stack.token });
  t.equal(res.status, 200, 'the new replica serves the cluster');
});
