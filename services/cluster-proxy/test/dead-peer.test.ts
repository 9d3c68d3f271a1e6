import t from 'tap';
import { startRelay } from '@gsp/service-kit/testing/relay';
import { agentEnv, startAgentApp, startStack, until } from './stack.js';

t.test('a tunnel that goes silent is dropped by both ends, and comes back when the link does', async (t) => {
  const stack = await startStack(t, { proxyEnv: { TUNNEL_PING_INTERVAL: '500ms' } });
  const [cluster] = stack.clusters;
  await cluster!.agent.stop(); // this test's agent takes the cluster's place
  // A link that can go silent without closing, as when a NAT forgets the connection or a node
  // disappears: while stalled, bytes are lost both ways and a close is not passed on either.
  const link = await startRelay(t, stack.tunnelUrl, { stalled: 'drop', closeThroughStall: false });
  const agent = await startAgentApp(t, {
    ...agentEnv(cluster!),
    PROXY_TUNNEL_URL: link.url,
    AGENT_PING_INTERVAL: '500ms',
  });
  await until('the agent to connect', () => (agent.agent.connected ? true : undefined));

  const token = await stack.proxyToken(cluster!.id);
  const get = () => stack.proxyStatus(cluster!.id, '/api/v1/namespaces', token);
  // A busy start-up can make a first ping late and cost a reconnect: wait for the steady state.
  await until('requests through the link', async () => ((await get()) === 200 ? true : undefined), 10_000, 20);

  link.stall();
  await until(
    'the proxy to drop the silent tunnel',
    () => (stack.proxy.registry.get(cluster!.id) === undefined ? true : undefined),
    10_000,
    20,
  );
  t.equal(await get(), 502, 'kubectl hears at once that no agent is connected, instead of hanging');
  await until('the agent to notice and redial', () => (agent.agent.connected ? undefined : true), 10_000, 20);
  t.pass('the agent gave up the silent connection');

  link.heal();
  await until('the agent to reconnect', () => (agent.agent.connected ? true : undefined), 10_000, 20);
  await until('requests to flow again', async () => ((await get()) === 200 ? true : undefined), 10_000, 20);
  t.pass('back without a restart');
});
