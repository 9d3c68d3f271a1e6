import t from 'tap';
import pg from 'pg';
import type * as Tap from 'tap';
import {
  AGENT_PRESENCE_EVENT,
  dropTunnel,
  expireLeases,
  readPresence,
  recordTunnel,
  renewLeases,
} from '@gsp/platform-contract';
import type { AgentPresence, AgentPresenceEvent } from '@gsp/platform-contract';
import type { FastifyInstance } from 'fastify';
import { bearer, build, registerCluster, seedTenant, until } from './helper.js';
import type { Built } from './helper.js';

const ORG = 'acme';
const LONG = 60_000;

async function agentOf(app: FastifyInstance, id: string): Promise<AgentPresence> {
  const res = await app.inject({ url: `/api/v1/tenants/${ORG}/clusters/${id}`, headers: await bearer('vera') });
  return res.json().agent as AgentPresence;
}

async function events(app: FastifyInstance, clusterId?: string): Promise<AgentPresenceEvent[]> {
  const { rows } = await app.pg.query<{ payload: AgentPresenceEvent }>(
    'SELECT payload FROM outbox_events WHERE event_type = $1 ORDER BY id',
    [AGENT_PRESENCE_EVENT],
  );
  return rows.map((r) => r.payload).filter((e) => clusterId === undefined || e.clusterId === clusterId);
}

/** An API server on a fresh schema (or on `shared`'s) with tenant acme and its viewer vera. */
async function setup(t: Tap.Test, shared?: Built): Promise<Built> {
  const built = await build(t, {}, shared && (async () => shared.databaseUrl));
  if (!shared) await seedTenant(built.app, ORG, { vera: 'viewer' });
  return built;
}

const lapse = (app: FastifyInstance, proxyId: string) =>
  app.pg.query("UPDATE agent_tunnels SET lease_expires_at = now() - interval '1 millisecond' WHERE proxy_id = $1", [
    proxyId,
  ]);

t.test('the cluster GETs answer agent presence: connected while a proxy holds a live lease', async (t) => {
  const { app } = await setup(t);
  const { id } = await registerCluster(app, ORG, 'c1');
  t.same(await agentOf(app, id), { connected: false, since: null }, 'a new cluster: disconnected');

  await recordTunnel(app.pg, { tunnelId: 't1', clusterId: id, proxyId: 'p1' }, LONG);
  const agent = await agentOf(app, id);
  t.equal(agent.connected, true);
  t.ok(Math.abs(Date.parse(agent.since!) - Date.now()) < 5000, `since ${agent.since}: the tunnel's start`);
  const list = await app.inject({ url: `/api/v1/tenants/${ORG}/clusters`, headers: await bearer('vera') });
  t.same(list.json().clusters[0].agent, agent, 'the list answers the same');

  await lapse(app, 'p1');
  t.same(await agentOf(app, id), { connected: false, since: null }, 'a lapsed lease stops counting at once');
  t.same(
    [...(await readPresence(app.pg, [id, 'unknown'])).values()],
    [
      { connected: false, since: null },
      { connected: false, since: null },
    ],
  );
});

t.test('a lease that runs out is cleared by the API server within a second and announced once', async (t) => {
  const { app } = await setup(t);
  const { id } = await registerCluster(app, ORG, 'c1');
  await recordTunnel(app.pg, { tunnelId: 't1', clusterId: id, proxyId: 'gone' }, 300);
  const recorded = performance.now();
  await until(
    'the lapsed row to be cleared',
    async () => ((await app.pg.query('SELECT 1 FROM agent_tunnels')).rowCount === 0 ? true : undefined),
    2000,
    10,
  );
  const ms = Math.round(performance.now() - recorded);
  t.ok(ms <= 1300 + 200, `cleared ${ms} ms after a 300 ms lease began (sweep every 1 s)`);
  t.same(
    (await events(app, id)).map((e) => e.connected),
    [true, false],
    'connected, then disconnected when the lease was cleared',
  );
});

t.test('two API-server replicas sweeping at once announce each expiry exactly once', async (t) => {
  const first = await setup(t);
  const second = await setup(t, first);
  const clusters: string[] = [];
  for (let i = 0; i < 20; i++) clusters.push((await registerCluster(first.app, ORG, `c${i}`)).id);
  for (const [i, clusterId] of clusters.entries()) {
    await recordTunnel(first.app.pg, { tunnelId: `dead-${i}`, clusterId, proxyId: 'dead' }, LONG);
    // Every other cluster is also held by a replica that lives on.
    if (i % 2 === 0) await recordTunnel(first.app.pg, { tunnelId: `live-${i}`, clusterId, proxyId: 'live' }, LONG);
  }
  const before = (await events(first.app)).length;
  await lapse(first.app, 'dead');
  // Both replicas' timers sweep too; these four sweeps race them.
  await Promise.all([first.app.pg, second.app.pg, first.app.pg, second.app.pg].map(expireLeases));
  const left = await first.app.pg.query("SELECT 1 FROM agent_tunnels WHERE proxy_id = 'dead'");
  t.equal(left.rowCount, 0, 'every lapsed row deleted');
  const after = (await events(first.app)).slice(before);
  const presence = await readPresence(first.app.pg, clusters);
  for (const [i, clusterId] of clusters.entries()) {
    const mine = after.filter((e) => e.clusterId === clusterId);
    t.same(
      mine,
      [{ org: ORG, clusterId, ...presence.get(clusterId)! }],
      `cluster ${i}: one event, ${i % 2 === 0 ? 'still connected through the live replica' : 'disconnected'}`,
    );
  }
});

t.test('concurrent records and drops from several replicas announce every change once, in order', async (t) => {
  const { app } = await setup(t);
  const { id } = await registerCluster(app, ORG, 'c1');
  const replicas = ['a', 'b', 'c'];
  // Each replica connects and disconnects five tunnels in turn; the replicas run at once.
  await Promise.all(
    replicas.map(async (proxyId) => {
      for (let n = 0; n < 5; n++) {
        const tunnel = { tunnelId: `${proxyId}-${n}`, clusterId: id };
        await recordTunnel(app.pg, { ...tunnel, proxyId }, LONG);
        await renewLeases(app.pg, proxyId, [tunnel], LONG);
        await dropTunnel(app.pg, tunnel);
      }
    }),
  );
  const announced = await events(app, id);
  for (let i = 1; i < announced.length; i++) {
    const [a, b] = [announced[i - 1]!, announced[i]!];
    t.not(`${a.connected} ${a.since}`, `${b.connected} ${b.since}`, `event ${i} changes something`);
  }
  t.same(announced.at(-1), { org: ORG, clusterId: id, connected: false, since: null }, 'the last says disconnected');
  t.ok(announced.filter((e) => !e.connected).length >= 1);
  t.comment(`${announced.length} events for 15 tunnels over 3 replicas`);
});

t.test('a heartbeat writes back a missing row and removes the rows of tunnels that ended', async (t) => {
  const { app } = await setup(t);
  const { id } = await registerCluster(app, ORG, 'c1');
  await recordTunnel(app.pg, { tunnelId: 'ended', clusterId: id, proxyId: 'p' }, LONG);
  // 'held' connected while the database was down; 'ended' ended then.
  const outcome = await renewLeases(app.pg, 'p', [{ tunnelId: 'held', clusterId: id }], LONG);
  t.same(outcome, { renewed: 0, recorded: 1, dropped: 1 });
  const { rows } = await app.pg.query<{ tunnel_id: string }>('SELECT tunnel_id FROM agent_tunnels');
  t.same(
    rows.map((r) => r.tunnel_id),
    ['held'],
  );
  t.equal((await agentOf(app, id)).connected, true);
  t.same(await renewLeases(app.pg, 'p', [{ tunnelId: 'held', clusterId: id }], LONG), {
    renewed: 1,
    recorded: 0,
    dropped: 0,
  });
});

t.test('a record that waited on a lock longer than its lease still gets a whole lease, and one event', async (t) => {
  const { app, databaseUrl } = await setup(t);
  const { id } = await registerCluster(app, ORG, 'c1');
  const before = (await events(app, id)).length;
  const blocker = new pg.Client({ connectionString: databaseUrl });
  await blocker.connect();
  t.teardown(() => blocker.end());
  await blocker.query('BEGIN');
  await blocker.query('LOCK TABLE agent_tunnels IN SHARE MODE');

  const lease = 300;
  const began = Date.parse(
    (await blocker.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0]!.now.toISOString(),
  );
  const recorded = recordTunnel(app.pg, { tunnelId: 't1', clusterId: id, proxyId: 'p1' }, lease);
  // The record waits for the lock until more than a lease has passed since its transaction began.
  await until('the record to wait longer than its lease', async () => {
    const { rows } = await blocker.query<{ now: Date }>(
      'SELECT clock_timestamp() AS now FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))',
    );
    return rows[0] && rows[0].now.getTime() - began > lease * 2 ? true : undefined;
  });
  await blocker.query('COMMIT');
  await recorded;

  t.equal((await readPresence(app.pg, [id])).get(id)?.connected, true, 'live: its lease runs from the write');
  const { rows } = await app.pg.query<{ renewed: number }>(
    `SELECT count(*)::int AS renewed FROM agent_tunnels
     WHERE tunnel_id = 't1' AND lease_expires_at > clock_timestamp()`,
  );
  t.equal(rows[0]?.renewed, 1, 'its row holds a lease still running');
  const renew = await renewLeases(app.pg, 'p1', [{ tunnelId: 't1', clusterId: id }], lease);
  t.match(renew, { renewed: 1, recorded: 0 }, 'the next heartbeat renews it rather than recording it again');
  t.equal((await events(app, id)).length - before, 1, 'one event: connected');
});
