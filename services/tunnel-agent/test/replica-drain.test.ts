import { spawn } from 'node:child_process';
import { nodeEntry } from '@gsp/service-kit/testing/entry';
import t from 'tap';
import { freePort, request, startReplicas, until, untilHolding } from './replicas.js';
import type { Replica } from './replicas.js';

t.test(
  "a draining replica's tunnel serves its request in flight to the end while the agent holds the replacement",
  async (t) => {
    const setup = await startReplicas(t, 3, { DRAIN_GRACE: '20s' });
    const [r1, r2] = setup.replicas as [Replica, Replica, Replica];
    const agent = setup.agent();
    await untilHolding(agent, ['r1', 'r2', 'r3']);
    const slow = setup.kubectlGet(r1, '/slow?ms=6000');
    await until('the slow request to reach the cluster', () =>
      setup.seen.some((p) => p.startsWith('/slow')) ? true : undefined,
    );
    // A rolling update: r1 is told to stop (its endpoint turns unready) while its replacement starts.
    setup.balancer.backend('r1').ready = false;
    const stopped = r1.stop('SIGTERM');
    const replacement = setup.addReplica();
    await until('r1 to be no longer counted', () => (!agent.replicas.includes('r1') ? true : undefined));
    t.equal(agent.tunnels, agent.replicas.length + 1, "r1's tunnel stays open while it drains");
    t.equal((await setup.kubectlGet(r2, '/api')).status, 200, 'kubectl through another replica works meanwhile');
    await replacement;
    const ms = await untilHolding(agent, ['r2', 'r3', 'r4']);
    t.comment(`the agent holds the replacement r4 ${ms} ms after it was ready`);
    const answer = await slow;
    t.equal(answer.status, 200, 'the request in flight at r1 is answered in full over its draining tunnel');
    t.equal((await stopped).code, 0, 'r1 exits cleanly once nothing is in flight');
    await until('the agent to let go of r1', () => (agent.tunnels === 3 ? true : undefined));
    t.same(agent.replicas, ['r2', 'r3', 'r4']);
  },
);

t.test('an agent that stops drains its tunnels: the request in flight completes, no new one is sent', async (t) => {
  const setup = await startReplicas(t, 2, { TUNNEL_WAIT: '300ms' });
  const [r1] = setup.replicas as [Replica, Replica];
  const agent = setup.agent({ drainGraceMs: 10_000 });
  await untilHolding(agent, ['r1', 'r2']);
  const slow = setup.kubectlGet(r1, '/slow?ms=1500');
  await until('the slow request to reach the cluster', () =>
    setup.seen.some((p) => p.startsWith('/slow')) ? true : undefined,
  );
  const stopAt = Date.now();
  const stopped = agent.stop();
  await t.resolves(
    until('r1 to retire the tunnel', async () => ((await r1.metric('gsp_proxy_tunnels')) === 0 ? true : undefined)),
    'r1 heard the drain: it offers the tunnel to no new request',
  );
  const after = await setup.kubectlGet(r1, '/api?after=drain');
  t.not(after.status, 200, `a request sent after the drain is not given to the stopping agent (${after.status})`);
  t.notOk(setup.seen.includes('/api?after=drain'), 'the cluster never saw it');
  const answer = await slow;
  t.equal(answer.status, 200, 'the request in flight is answered in full');
  await stopped;
  const ms = Date.now() - stopAt;
  t.comment(`the agent stopped ${ms} ms after stop() (its request had about 1.5 s to run)`);
  t.ok(ms < 10_000, 'within AGENT_DRAIN_GRACE');
  t.equal(agent.tunnels, 0, 'every tunnel is closed');
});

t.test('a request still running after AGENT_DRAIN_GRACE is cut when the agent stops', async (t) => {
  const setup = await startReplicas(t, 1);
  const [r1] = setup.replicas as [Replica];
  const agent = setup.agent({ drainGraceMs: 300 });
  await untilHolding(agent, ['r1']);
  const slow = setup.kubectlGet(r1, '/slow?ms=20000');
  await until('the slow request to reach the cluster', () =>
    setup.seen.some((p) => p.startsWith('/slow')) ? true : undefined,
  );
  const stopAt = Date.now();
  await agent.stop();
  const ms = Date.now() - stopAt;
  t.ok(ms < 2000, `the agent stopped after its grace, not after the request (${ms} ms)`);
  const answer = await slow.catch((err: Error) => ({ status: 0, body: err.message }));
  t.not(answer.status, 200, `the request was cut (${answer.status})`);
});

t.test('SIGTERM to the agent process drains it: the request in flight completes, then it exits 0', async (t) => {
  const setup = await startReplicas(t, 1);
  const [r1] = setup.replicas as [Replica];
  const port = await freePort();
  const child = spawn(process.execPath, nodeEntry(new URL('../src/server.ts', import.meta.url)), {
    env: {
      PATH: process.env.PATH ?? '',
      ...setup.agentEnv,
      PORT: String(port),
      METRICS_PORT: String(await freePort()),
      HOST: '127.0.0.1',
      AGENT_DRAIN_GRACE: '10s',
    },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.teardown(() => child.kill('SIGKILL'));
  await until(
    'the agent process to connect',
    async () =>
      (await request(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined,
    30_000,
    50,
  );
  const slow = setup.kubectlGet(r1, '/slow?ms=1500');
  await until('the slow request to reach the cluster', () =>
    setup.seen.some((p) => p.startsWith('/slow')) ? true : undefined,
  );
  const signalledAt = Date.now();
  child.kill('SIGTERM');
  t.equal((await slow).status, 200, 'the request in flight is answered in full');
  t.equal(await exited, 0, 'the agent exits cleanly');
  t.comment(`exited ${Date.now() - signalledAt} ms after SIGTERM`);
});
