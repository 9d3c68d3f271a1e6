import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import t from 'tap';
import type { Test } from 'tap';
import { AGENT_PRESENCE_EVENT } from '@gsp/platform-contract';
import type { AgentPresence, AgentPresenceEvent } from '@gsp/platform-contract';
import { loadConfig } from '../src/config.js';
import { buildClusterProxy } from '../src/proxy/proxy.js';
import { agentEnv, bearer, OPERATOR, ORG, startAgentApp, startStack, until } from './stack.js';
import type { Stack, StackOptions } from './stack.js';
import { nodeEntry } from '@gsp/service-kit/testing/entry';

/** The stack, and a connection pool to its database for reading what the proxy wrote. */
type PresenceStack = Stack & { db: pg.Pool };

async function presenceStack(t: Test, options?: StackOptions): Promise<PresenceStack> {
  const stack = await startStack(t, options);
  const db = new pg.Pool({ connectionString: stack.api.databaseUrl, max: 2 });
  t.teardown(() => db.end());
  return Object.assign(stack, { db });
}

/** `agent` as the API's cluster GET answers it, and the same cluster's entry in the list. */
async function agentOf(stack: PresenceStack, clusterId: string): Promise<AgentPresence> {
  const headers = await bearer(OPERATOR);
  const one = await stack.api.app.inject({ url: `/api/v1/tenants/${ORG}/clusters/${clusterId}`, headers });
  if (one.statusCode !== 200) throw new Error(`GET cluster: ${one.statusCode} ${one.body}`);
  const list = await stack.api.app.inject({ url: `/api/v1/tenants/${ORG}/clusters`, headers });
  const listed = (list.json().clusters as { id: string; agent: AgentPresence }[]).find((c) => c.id === clusterId);
  const agent = one.json().agent as AgentPresence;
  if (JSON.stringify(listed?.agent) !== JSON.stringify(agent))
    throw new Error(`the list says ${JSON.stringify(listed?.agent)}, the cluster ${JSON.stringify(agent)}`);
  return agent;
}

/**
 * Polls the cluster GET until `agent.connected` is `connected`; resolves with the answer and the milliseconds it
 * took.
 */
async function untilAgent(
  stack: PresenceStack,
  clusterId: string,
  connected: boolean,
  ms: number,
  from = performance.now(),
): Promise<{ agent: AgentPresence; ms: number }> {
  const agent = await until(
    `the API to say the agent is ${connected ? 'connected' : 'disconnected'}`,
    async () => {
      const answer = await agentOf(stack, clusterId);
      return answer.connected === connected ? answer : undefined;
    },
    ms,
    10,
  );
  return { agent, ms: Math.round(performance.now() - from) };
}

/** The cluster's `agents.presence` outbox events, in order. */
async function presenceEvents(stack: PresenceStack, clusterId: string): Promise<AgentPresenceEvent[]> {
  const { rows } = await stack.db.query<{ payload: AgentPresenceEvent }>(
    'SELECT payload FROM outbox_events WHERE event_type = $1 ORDER BY id',
    [AGENT_PRESENCE_EVENT],
  );
  return rows.map((r) => r.payload).filter((e) => e.clusterId === clusterId);
}

const tunnelRows = async (stack: PresenceStack, clusterId: string) =>
  (
    await stack.db.query<{ proxy_id: string }>('SELECT proxy_id FROM agent_tunnels WHERE cluster_id = $1', [clusterId])
  ).rows.map((r) => r.proxy_id);

const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));

/** The proxy as its own process (configured like production, by environment), killed with the test. */
async function proxyProcess(
  t: Test,
  stack: PresenceStack,
  env: Record<string, string>,
): Promise<{ tunnelUrl: string; kill(signal: NodeJS.Signals): Promise<void> }> {
  const child = spawn(process.execPath, nodeEntry(server), {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: stack.api.databaseUrl,
      API_SERVER_URL: stack.apiUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      TUNNEL_PORT: '0',
      METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.teardown(async () => {
    child.kill('SIGKILL');
    await exited;
  });
  const tunnelUrl = await until(
    'the proxy process to listen',
    () => /"tunnelUrl":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output)?.[1],
    30_000,
    20,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; it printed:\n${output}`);
  });
  return {
    tunnelUrl,
    async kill(signal) {
      child.kill(signal);
      await exited;
    },
  };
}

/** The stack's own agent recorded, then stopped, and its row gone. */
async function withoutAgent(stack: PresenceStack): Promise<string> {
  const [cluster] = stack.clusters;
  await untilAgent(stack, cluster!.id, true, 5000);
  await cluster!.agent.stop();
  await untilAgent(stack, cluster!.id, false, 5000);
  return cluster!.id;
}

t.test('the cluster GET says within 1 s when the agent starts and stops, with one event per change', async (t) => {
  const stack = await presenceStack(t);
  const [cluster] = stack.clusters;
  const first = await untilAgent(stack, cluster!.id, true, 5000);
  t.match(first.agent.since, /^\d{4}-\d\d-\d\dT/, 'connected since an RFC 3339 time');
  await withoutAgent(stack);

  const started = performance.now();
  const agent = await stack.startAgent(cluster!);
  const up = await untilAgent(stack, cluster!.id, true, 1000, started);
  t.ok(up.ms <= 1000, `connected after ${up.ms} ms`);
  const stopped = performance.now();
  await agent.stop();
  const down = await untilAgent(stack, cluster!.id, false, 1000, stopped);
  t.ok(down.ms <= 1000, `disconnected after ${down.ms} ms`);
  t.same(down.agent, { connected: false, since: null });

  t.same(
    await presenceEvents(stack, cluster!.id),
    [
      { org: ORG, clusterId: cluster!.id, connected: true, since: first.agent.since },
      { org: ORG, clusterId: cluster!.id, connected: false, since: null },
      { org: ORG, clusterId: cluster!.id, connected: true, since: up.agent.since },
      { org: ORG, clusterId: cluster!.id, connected: false, since: null },
    ],
    'one outbox event per change, each with the state after it',
  );
  t.comment(`GET flipped ${up.ms} ms after the agent started and ${down.ms} ms after it stopped`);
});

t.test('with two proxy replicas holding the cluster, one tunnel ending leaves it connected', async (t) => {
  const stack = await presenceStack(t);
  const [cluster] = stack.clusters;
  const first = await untilAgent(stack, cluster!.id, true, 5000);

  const second = await buildClusterProxy(
    loadConfig({
      DATABASE_URL: stack.api.databaseUrl,
      API_SERVER_URL: stack.apiUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      TUNNEL_PORT: '0',
      METRICS_PORT: '0',
      PROXY_REPLICA_ID: 'replica-b',
    }),
    false,
  );
  const { tunnelUrl } = await second.listen();
  t.teardown(() => second.close());
  const other = await startAgentApp(t, { ...agentEnv(cluster!), PROXY_TUNNEL_URL: tunnelUrl });
  await until('both replicas to record a tunnel', async () =>
    (await tunnelRows(stack, cluster!.id)).length === 2 ? true : undefined,
  );

  await cluster!.agent.stop();
  await until('the first replica to drop its tunnel', async () =>
    (await tunnelRows(stack, cluster!.id)).join() === 'replica-b' ? true : undefined,
  );
  const meanwhile = await agentOf(stack, cluster!.id);
  t.equal(meanwhile.connected, true, 'still connected through the other replica');
  t.not(meanwhile.since, first.agent.since, "since: the remaining tunnel's start");

  await other.agent.stop();
  await untilAgent(stack, cluster!.id, false, 1000);
  const events = await presenceEvents(stack, cluster!.id);
  t.same(
    events.map((e) => [e.connected, e.since]),
    [
      [true, first.agent.since],
      [true, meanwhile.since],
      [false, null],
    ],
    'disconnected is announced once, when the last tunnel ends',
  );
});

t.test('a proxy killed with SIGKILL stops counting within its lease, and the API announces it', async (t) => {
  const stack = await presenceStack(t);
  const clusterId = await withoutAgent(stack);
  const leaseMs = 1500;
  const proxy = await proxyProcess(t, stack, { PRESENCE_LEASE: `${leaseMs}ms`, PROXY_REPLICA_ID: 'doomed' });
  const agent = await startAgentApp(t, { ...agentEnv(stack.clusters[0]!), PROXY_TUNNEL_URL: proxy.tunnelUrl });
  await until('the agent to connect to the process', () => (agent.agent.connected ? true : undefined), 10_000);
  await untilAgent(stack, clusterId, true, 5000);
  t.same(await tunnelRows(stack, clusterId), ['doomed']);
  const before = (await presenceEvents(stack, clusterId)).length;

  const killed = performance.now();
  const killedAt = Date.now();
  await proxy.kill('SIGKILL');
  const lease = await stack.db.query<{ until: Date }>(
    'SELECT lease_expires_at AS until FROM agent_tunnels WHERE cluster_id = $1',
    [clusterId],
  );
  const left = lease.rows[0]!.until.getTime() - killedAt;
  // A heartbeat already sent when the process died still commits at the database, a few ms later
  // on a busy machine (its now() is then later than the kill): allow for that one write.
  t.ok(left <= leaseMs + 250, `the row's lease ran out ${left} ms after the kill (lease ${leaseMs} ms)`);
  const down = await untilAgent(stack, clusterId, false, leaseMs + 1000, killed);
  t.ok(down.ms <= leaseMs + 300, `the GET says disconnected ${down.ms} ms after the kill`);
  const events = await until(
    'the API to announce it',
    async () => {
      const all = await presenceEvents(stack, clusterId);
      return all.length > before ? all.slice(before) : undefined;
    },
    2000,
    10,
  );
  const announced = Math.round(performance.now() - killed);
  t.same(events, [{ org: ORG, clusterId, connected: false, since: null }], 'one disconnected event');
  t.same(await tunnelRows(stack, clusterId), [], 'the lapsed row is deleted');
  t.comment(`killed proxy: GET disconnected after ${down.ms} ms, event after ${announced} ms (lease ${leaseMs} ms)`);
});

t.test('a proxy stopped with SIGTERM removes its rows at once, whatever its lease', async (t) => {
  const stack = await presenceStack(t);
  const clusterId = await withoutAgent(stack);
  const proxy = await proxyProcess(t, stack, { PRESENCE_LEASE: '10m' });
  const agent = await startAgentApp(t, { ...agentEnv(stack.clusters[0]!), PROXY_TUNNEL_URL: proxy.tunnelUrl });
  await until('the agent to connect to the process', () => (agent.agent.connected ? true : undefined), 10_000);
  await untilAgent(stack, clusterId, true, 5000);

  const stopped = performance.now();
  await proxy.kill('SIGTERM');
  const down = await untilAgent(stack, clusterId, false, 1000, stopped);
  t.same(await tunnelRows(stack, clusterId), []);
  t.same((await presenceEvents(stack, clusterId)).at(-1), { org: ORG, clusterId, connected: false, since: null });
  t.comment(`graceful stop: disconnected after ${down.ms} ms`);
});

t.test('a presence write the database cannot take does not hold up or refuse the tunnel', async (t) => {
  const stack = await presenceStack(t, { proxyEnv: { PRESENCE_LEASE: '1500ms' } });
  const [cluster] = stack.clusters;
  const clusterId = await withoutAgent(stack);
  const events = (await presenceEvents(stack, clusterId)).length;
  const token = await stack.proxyToken(clusterId);

  // Every write to agent_tunnels waits, until the proxy gives up after its 2 s query timeout; reads still answer.
  const blocker = new pg.Client({ connectionString: stack.api.databaseUrl });
  await blocker.connect();
  t.teardown(() => blocker.end());
  await blocker.query('BEGIN');
  await blocker.query('LOCK TABLE agent_tunnels IN SHARE MODE');

  const started = performance.now();
  const agent = await stack.startAgent(cluster!);
  await until('kubectl requests to go through', async () =>
    (await stack.proxyStatus(clusterId, '/api/v1/namespaces', token)) === 200 ? true : undefined,
  );
  const served = Math.round(performance.now() - started);
  t.ok(served < 1000, `the tunnel served kubectl ${served} ms after the agent started, with the write stuck`);
  t.ok(agent.connected, 'the agent was not refused');
  t.equal((await agentOf(stack, clusterId)).connected, false, 'not recorded yet');

  await until('the stuck write to give up', () => (stack.proxy.presence.failures > 0 ? true : undefined), 5000, 20);
  t.equal(await stack.proxyStatus(clusterId, '/api/v1/namespaces', token), 200, 'the tunnel still serves');
  await blocker.query('COMMIT');
  const up = await untilAgent(stack, clusterId, true, 6000);
  t.equal(stack.proxy.registry.get(clusterId) !== undefined, true, 'the same tunnel, never dropped');
  t.same(
    (await presenceEvents(stack, clusterId)).slice(events),
    [{ org: ORG, clusterId, connected: true, since: up.agent.since }],
    'the heartbeat wrote it back, with one event',
  );
});
