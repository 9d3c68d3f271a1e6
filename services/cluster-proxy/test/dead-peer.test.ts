import net from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { buildAgentApp } from '../../tunnel-agent/src/app.js';
import { loadConfig } from '../../tunnel-agent/src/config.js';
import { startStack, until } from './stack.js';

/**
 * A link that can go silent without closing, as when a NAT forgets the connection or a node
 * disappears: while `frozen`, bytes are swallowed in both directions and a close on one side
 * is not passed to the other.
 */
async function freezableLink(target: URL) {
  const link = { frozen: false, sockets: new Set<net.Socket>() };
  const server = net.createServer((agentSide) => {
    const proxySide = net.connect(Number(target.port), target.hostname);
    for (const [from, to] of [
      [agentSide, proxySide],
      [proxySide, agentSide],
    ] as const) {
      link.sockets.add(from);
      from.on('data', (chunk: Buffer) => {
        if (!link.frozen) to.write(chunk);
      });
      from.on('error', () => undefined);
      from.on('close', () => {
        link.sockets.delete(from);
        // A silent link carries no FIN either: the other end must find out by itself.
        if (!link.frozen) to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    link,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      for (const s of link.sockets) s.destroy();
      server.close();
    },
  };
}

t.test('a tunnel that goes silent is dropped by both ends, and comes back when the link does', async (t) => {
  const stack = await startStack(t, { proxyEnv: { TUNNEL_PING_INTERVAL: '500ms' } });
  const [cluster] = stack.clusters;
  await cluster!.agent.stop(); // this test's agent takes the cluster's place
  const link = await freezableLink(new URL(stack.tunnelUrl));
  t.teardown(() => link.close());
  const agent = await buildAgentApp(
    loadConfig({
      PROXY_TUNNEL_URL: link.url,
      CLUSTER_ID: cluster!.id,
      AGENT_TOKEN: cluster!.agentToken,
      KUBE_API_URL: cluster!.kube.url,
      AGENT_BACKOFF_INITIAL: '20ms',
      AGENT_BACKOFF_MAX: '100ms',
      AGENT_PING_INTERVAL: '500ms',
    }),
    false,
  );
  t.teardown(() => agent.close());
  await until('the agent to connect', () => (agent.agent.connected ? true : undefined));

  const token = await stack.proxyToken(cluster!.id);
  const get = () => stack.proxyStatus(cluster!.id, '/api/v1/namespaces', token);
  // A busy start-up can make a first ping late and cost a reconnect: wait for the steady state.
  await until('requests through the link', async () => ((await get()) === 200 ? true : undefined), 10_000, 20);

  link.link.frozen = true;
  await until(
    'the proxy to drop the silent tunnel',
    () => (stack.proxy.registry.get(cluster!.id) === undefined ? true : undefined),
    10_000,
    20,
  );
  t.equal(await get(), 502, 'kubectl hears at once that no agent is connected, instead of hanging');
  await until('the agent to notice and redial', () => (agent.agent.connected ? undefined : true), 10_000, 20);
  t.pass('the agent gave up the silent connection');

  link.link.frozen = false;
  await until('the agent to reconnect', () => (agent.agent.connected ? true : undefined), 10_000, 20);
  await until('requests to flow again', async () => ((await get()) === 200 ? true : undefined), 10_000, 20);
  t.pass('back without a restart');
});
