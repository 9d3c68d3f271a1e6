import pg from 'pg';
import t from 'tap';
import { Code } from '@connectrpc/connect';
import type { ProxyFrame } from '@gsp/tunnel-proto';
import { rawTunnel } from './raw-tunnel.js';
import { startStack, until } from './stack.js';

/** Heartbeats every 300 ms: a count change reaches the agents within about that. */
const LEASE_MS = 900;

const countOf = (frame: ProxyFrame): number | undefined =>
  frame.kind.case === 'replicas' ? frame.kind.value.count : undefined;

t.test('each replica names itself in hello and tells how many serve; agents hear every change', async (t) => {
  const stack = await startStack(t, { proxyEnv: { PRESENCE_LEASE: `${LEASE_MS}ms`, PROXY_REPLICA_ID: 'r1' } });
  const [cluster] = stack.clusters;
  const db = new pg.Pool({ connectionString: stack.api.databaseUrl, max: 2 });
  t.teardown(() => db.end());
  const agentOf = { clusterId: cluster!.id, agentToken: cluster!.agentToken };
  // The raw tunnels below stand for the agent (a replica holds one tunnel per cluster).
  await cluster!.agent.stop();

  const r2 = await stack.startReplica({ PROXY_REPLICA_ID: 'r2' });
  const atR2 = rawTunnel(t, r2.tunnelUrl, agentOf);
  t.match(
    await atR2.hello,
    { clusterId: cluster!.id, replicaId: 'r2', replicaCount: 2 },
    'the second replica counts both in its hello',
  );
  await until('the first replica to count two', () => (stack.proxy.replicas.count === 2 ? true : undefined), 3000);
  const atR1 = rawTunnel(t, stack.tunnelUrl, agentOf);
  t.match(await atR1.hello, { replicaId: 'r1', replicaCount: 2 });

  let started = performance.now();
  const r3 = await stack.startReplica({ PROXY_REPLICA_ID: 'r3' });
  for (const tunnel of [atR1, atR2]) await tunnel.frame('replicas 3', (f) => countOf(f) === 3);
  const scaledUp = Math.round(performance.now() - started);
  t.pass(`a third replica reached the agents of the others in ${scaledUp} ms`);

  started = performance.now();
  await r3.proxy.close();
  const { rows } = await db.query('SELECT replica_id FROM proxy_replicas ORDER BY replica_id');
  t.same(
    rows.map((r) => r.replica_id),
    ['r1', 'r2'],
    'a stopped replica deletes its row',
  );
  for (const tunnel of [atR1, atR2])
    await tunnel.frame('replicas 2 after 3', (f) => countOf(f) === 2 && tunnel.frames.some((g) => countOf(g) === 3));
  const stopped = Math.round(performance.now() - started);
  t.pass(`a stopped replica was counted out by the others in ${stopped} ms`);

  // A replica killed without a goodbye: its row stays until its lease runs out, nobody renewing it.
  const pushed = () => atR1.frames.filter((f) => countOf(f) !== undefined).length;
  const before = pushed();
  started = performance.now();
  await db.query(
    "INSERT INTO proxy_replicas (replica_id, expires_at) VALUES ('killed', now() + $1 * interval '1 millisecond')",
    [LEASE_MS],
  );
  await until('the killed replica to be counted', () => (pushed() > before ? true : undefined), 3000);
  t.equal(countOf(atR1.frames.at(-1)!), 3, 'counted while its lease lives');
  await until('the killed replica to expire', () => (pushed() > before + 1 ? true : undefined), 5000);
  const expired = Math.round(performance.now() - started);
  t.equal(countOf(atR1.frames.at(-1)!), 2, 'counted out once its lease ran out');
  t.ok(expired >= LEASE_MS, `counted out ${expired} ms after its last renewal (lease ${LEASE_MS} ms)`);
  await until(
    'a replica to delete the lapsed row',
    async () =>
      (await db.query("SELECT 1 FROM proxy_replicas WHERE replica_id = 'killed'")).rowCount === 0 ? true : undefined,
    3000,
    20,
  );
  t.comment(
    `count change reached agents: scale-up ${scaledUp} ms, stop ${stopped} ms, ` +
      `kill ${expired} ms (lease ${LEASE_MS} ms)`,
  );

  const metrics = await (await fetch(stack.metricsUrl)).text();
  t.match(metrics, /^gsp_proxy_replicas 2$/m, 'gsp_proxy_replicas says what the replica counts');
  t.match(metrics, /^gsp_proxy_draining 0$/m);
});

t.test(
  'a tunnel to a replica the agent already holds is refused already_exists, before it is registered',
  async (t) => {
    const stack = await startStack(t, { proxyEnv: { PROXY_REPLICA_ID: 'r1' } });
    const [cluster] = stack.clusters;
    await until('the agent to connect', () => (cluster!.agent.connected ? true : undefined));
    const held = stack.proxy.registry.get(cluster!.id);
    const agentOf = { clusterId: cluster!.id, agentToken: cluster!.agentToken };

    const duplicate = rawTunnel(t, stack.tunnelUrl, { ...agentOf, held: ['r0', 'r1'] });
    const refusal = await duplicate.ended;
    t.equal(refusal?.code, Code.AlreadyExists);
    t.match(refusal?.rawMessage, 'the agent already holds a tunnel to replica r1');
    t.equal(stack.proxy.registry.get(cluster!.id), held, 'the registered tunnel stays, untouched');
    t.notOk(held?.closed);

    await cluster!.agent.stop();
    const other = rawTunnel(t, stack.tunnelUrl, { ...agentOf, held: ['r0', ' r2 '] });
    t.match(await other.hello, { replicaId: 'r1' }, 'a list without this replica is accepted');
    t.not(stack.proxy.registry.get(cluster!.id), undefined, 'and registered');

    const metrics = await (await fetch(stack.metricsUrl)).text();
    t.match(metrics, /^gsp_proxy_tunnel_connections_total\{result="duplicate"\} 1$/m);
  },
);
