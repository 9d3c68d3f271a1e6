import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { Test } from 'tap';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import type { ConnectRouter, HandlerContext } from '@connectrpc/connect';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { HELD_REPLICAS_HEADER, TunnelService } from '@gsp/tunnel-proto';
import type { AgentMessage, ProxyMessageSchema } from '@gsp/tunnel-proto';
import { until } from '@gsp/api-server/test/helper.js';
import { heldReplicasValue } from '../src/tunnel/tunnel.js';
import { kubeTarget } from '../src/kube.js';
import { startAgent } from '../src/agent.js';

t.test('the held list names the replicas it can carry, at most 64', async (t) => {
  t.equal(heldReplicasValue([]), '');
  t.equal(heldReplicasValue(['proxy-0', 'proxy-1']), 'proxy-0,proxy-1');
  t.equal(
    heldReplicasValue(['', 'a,b', 'caf\u00e9', 'two words', 'ok']),
    'ok',
    'ids that would break the list are left out',
  );
  const many = Array.from({ length: 70 }, (_, i) => `p${i}`);
  t.equal(heldReplicasValue(many).split(',').length, 64);
});

/**
 * A tunnel endpoint that answers every Connect with `hello` (no replica id and no count, as a proxy
 * before replicas answered) and keeps the stream open; it records each dial's held list.
 */
async function olderProxy(t: Test): Promise<{ url: string; dials: (string | null)[] }> {
  const dials: (string | null)[] = [];
  const routes = (router: ConnectRouter) =>
    router.service(TunnelService, {
      async *connect(
        requests: AsyncIterable<AgentMessage>,
        ctx: HandlerContext,
      ): AsyncIterable<MessageInitShape<typeof ProxyMessageSchema>> {
        dials.push(ctx.requestHeader.get(HELD_REPLICAS_HEADER));
        yield { frames: [{ streamId: 0, kind: { case: 'hello', value: { clusterId: 'c-1' } } }] };
        for await (const message of requests) void message;
      },
    });
  const server = http2.createServer(connectNodeAdapter({ routes, grpc: false, grpcWeb: false }));
  const sessions = new Set<http2.Http2Session>();
  server.on('session', (s) => sessions.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sessions) s.destroy();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, dials };
}

t.test('a proxy that names no replicas gets one tunnel, as before', async (t) => {
  const proxy = await olderProxy(t);
  const kube = await kubeTarget({
    url: 'http://127.0.0.1:9',
    token: undefined,
    clientCertFile: undefined,
    clientKeyFile: undefined,
    caFile: undefined,
    insecureSkipTlsVerify: false,
  });
  t.teardown(() => kube.close());
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const agent = startAgent({
    proxyTunnelUrl: proxy.url,
    clusterId: 'c-1',
    agentToken: 'token',
    kube,
    backoffInitialMs: 20,
    backoffMaxMs: 50,
    backoffResetMs: 60_000,
    syncIntervalMs: 20,
    log: quiet,
  });
  t.teardown(() => agent.stop(0));
  await until('the agent to connect', () => (agent.connected ? true : undefined));
  // Twenty sync intervals: time enough for any further dial.
  const from = Date.now();
  await until('twenty sync intervals', () => (Date.now() - from >= 400 ? true : undefined), 2000, 20);
  t.equal(proxy.dials.length, 1, 'one dial, one tunnel');
  t.equal(proxy.dials[0], null, 'the first dial names no held replica');
  t.equal(agent.target, 1);
  t.equal(agent.tunnels, 1);
  t.same(agent.replicas, ['']);
});
