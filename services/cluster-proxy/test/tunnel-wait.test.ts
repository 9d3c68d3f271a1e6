import t from 'tap';
import type { IncomingMessage } from 'node:http';
import { rawTunnel } from './raw-tunnel.js';
import { bodyOf, responseTo, startRedisStack, startStack, until } from './stack.js';
import type { Stack } from './stack.js';

/** The answer to a GET through `stack`'s proxy: status, headers, body, and how long it took. */
async function get(stack: Stack, clusterId: string, token: string) {
  const started = performance.now();
  const res: IncomingMessage = await responseTo(stack.proxyRequest(clusterId, '/api/v1/namespaces', token));
  const body = bodyOf(res);
  await new Promise((resolve) => res.on('end', resolve));
  return { status: res.statusCode, headers: res.headers, body: body(), ms: Math.round(performance.now() - started) };
}

/** The first answer once the proxy has heard the switch is back on (until then it answers 410). */
const afterSwitchOn = (stack: Stack, clusterId: string, token: string) =>
  until('the proxy to hear the switch', async () => {
    const res = await get(stack, clusterId, token);
    return res.status === 410 ? undefined : res;
  });

/** The stack's agent stopped and its tunnel gone. */
async function withoutTunnel(stack: Stack): Promise<{ id: string; token: string }> {
  const [cluster] = stack.clusters;
  await until('the agent to connect', () => (cluster!.agent.connected ? true : undefined));
  await cluster!.agent.stop();
  await until('the tunnel to go', () => (stack.proxy.registry.get(cluster!.id) ? undefined : true));
  return { id: cluster!.id, token: await stack.proxyToken(cluster!.id) };
}

t.test('a request waits for a tunnel that arrives within TUNNEL_WAIT, and is served', async (t) => {
  const stack = await startStack(t, { proxyEnv: { TUNNEL_WAIT: '3s' } });
  const { id, token } = await withoutTunnel(stack);
  const answer = get(stack, id, token);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await stack.startAgent(stack.clusters[0]!);
  const res = await answer;
  t.equal(res.status, 200, 'served once the agent connected');
  t.ok(res.ms >= 300 && res.ms < 3000, `answered after ${res.ms} ms, when the tunnel came`);
});

t.test('no tunnel within TUNNEL_WAIT while the agent holds one to another replica: 503 Retry-After', async (t) => {
  const stack = await startStack(t, { proxyEnv: { TUNNEL_WAIT: '400ms' } });
  const { id, token } = await withoutTunnel(stack);
  const other = await stack.startReplica({ PROXY_REPLICA_ID: 'other' });
  const agent = await stack.startAgent(stack.clusters[0]!, undefined, other.tunnelUrl);
  await until('the agent to connect to the other replica', () => (agent.connected ? true : undefined));
  await other.proxy.presence.settled();

  const res = await get(stack, id, token);
  t.equal(res.status, 503);
  t.equal(res.headers['retry-after'], '1');
  t.match(JSON.parse(res.body), {
    kind: 'Status',
    code: 503,
    reason: 'ServiceUnavailable',
    message: `the agent of cluster ${id} is reconnecting to the proxy; retry in a moment`,
  });
  t.ok(res.ms >= 400, `after waiting TUNNEL_WAIT (${res.ms} ms)`);

  // kubectl exec (an upgrade) hears the same.
  const exec = stack.proxyRequest(id, '/api/v1/namespaces/default/pods/game/exec?command=sh', token);
  exec.setHeader('connection', 'Upgrade');
  exec.setHeader('upgrade', 'websocket');
  const upgrade = await responseTo(exec);
  upgrade.resume();
  t.equal(upgrade.statusCode, 503);
  t.equal(upgrade.headers['retry-after'], '1', 'an upgrade is told when to retry too');
});

t.test('no tunnel within TUNNEL_WAIT and no agent anywhere: the old 502 advice', async (t) => {
  const stack = await startStack(t, { proxyEnv: { TUNNEL_WAIT: '200ms' } });
  const { id, token } = await withoutTunnel(stack);
  const res = await get(stack, id, token);
  t.equal(res.status, 502);
  t.notOk(res.headers['retry-after']);
  t.match(JSON.parse(res.body).message, 'has no connected tunnel agent; check that the agent runs');
  t.ok(res.ms >= 200, `after waiting TUNNEL_WAIT (${res.ms} ms)`);
});

t.test('a request sent as the switch comes back on waits for the agent and succeeds', async (t) => {
  const stack = await startRedisStack(t);
  const [cluster] = stack.clusters;
  await until('the agent to connect', () => (cluster!.agent.connected ? true : undefined));
  const token = await stack.proxyToken(cluster!.id);
  t.equal((await stack.setSwitch(false, cluster!.id)).statusCode, 200);
  await until('the tunnel to close', () => (stack.proxy.registry.get(cluster!.id) ? undefined : true));
  t.equal((await stack.setSwitch(null, cluster!.id)).statusCode, 200);
  const res = await afterSwitchOn(stack, cluster!.id, token);
  t.equal(res.status, 200, `served after ${res.ms} ms, not 502`);
});

t.test('right after the switch comes back on, an agent not back yet is "reconnecting", not missing', async (t) => {
  const stack = await startRedisStack(t, { proxyEnv: { TUNNEL_WAIT: '0' } });
  const [cluster] = stack.clusters;
  await until('the agent to connect', () => (cluster!.agent.connected ? true : undefined));
  const token = await stack.proxyToken(cluster!.id);
  t.equal((await stack.setSwitch(false, cluster!.id)).statusCode, 200);
  await until('the tunnel to close', () => (stack.proxy.registry.get(cluster!.id) ? undefined : true));
  await cluster!.agent.stop(); // held back, as an agent in its backoff is
  t.equal((await stack.setSwitch(null, cluster!.id)).statusCode, 200);
  const res = await afterSwitchOn(stack, cluster!.id, token);
  t.equal(res.status, 503);
  t.equal(res.headers['retry-after'], '1');
  t.match(JSON.parse(res.body).message, 'is reconnecting to the proxy; retry in a moment');
});

t.test("an agent's drain sends new requests elsewhere while the one in flight on it finishes", async (t) => {
  const stack = await startStack(t, { proxyEnv: { TUNNEL_WAIT: '300ms' } });
  const { id, token } = await withoutTunnel(stack);
  const tunnel = rawTunnel(t, stack.tunnelUrl, { clusterId: id, agentToken: stack.clusters[0]!.agentToken });
  await tunnel.hello;
  const inFlight = get(stack, id, token);
  const open = await tunnel.frame('the request', (f) => f.kind.case === 'open');

  tunnel.send({ streamId: 0, kind: { case: 'drain', value: {} } });
  await until('the tunnel to leave the registry', () => (stack.proxy.registry.get(id) ? undefined : true));
  t.equal(stack.proxy.registry.all().length, 1, 'still live until its streams end');
  const meanwhile = await get(stack, id, token);
  t.equal(meanwhile.status, 503, 'a new request is not sent to the draining tunnel (the agent is connected)');

  tunnel.answer(open.streamId, 200, 'finished');
  const res = await inFlight;
  t.equal(res.status, 200);
  t.equal(res.body, 'finished', 'the request in flight finished on the drained tunnel');
});
