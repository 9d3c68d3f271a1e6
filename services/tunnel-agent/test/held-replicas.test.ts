import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { Test } from 'tap';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { Code, ConnectError } from '@connectrpc/connect';
import type { ConnectRouter, HandlerContext } from '@connectrpc/connect';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { HELD_REPLICAS_HEADER, TunnelService } from '@gsp/tunnel-proto';
import type { AgentMessage, ProxyMessageSchema } from '@gsp/tunnel-proto';
import { until } from '@gsp/api-server/testing';
import { heldReplicasValue } from '../src/tunnel/tunnel.js';
import { kubeTarget } from '../src/kube.js';
import { startAgent } from '../src/agent/agent.js';

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
 * A tunnel endpoint that answers every Connect with `hello` and keeps the stream open; it records
 * each dial's held list. By default it names no replica and no count, as a proxy before replicas
 * did; `replica` makes it one replica of `count` that refuses a dial naming it as held.
 */
async function fakeProxy(
  t: Test,
  replica?: { id: string; count: number },
): Promise<{ url: string; dials: (string | null)[] }> {
  const dials: (string | null)[] = [];
  const routes = (router: ConnectRouter) =>
    router.service(TunnelService, {
      async *connect(
        requests: AsyncIterable<AgentMessage>,
        ctx: HandlerContext,
      ): AsyncIterable<MessageInitShape<typeof ProxyMessageSchema>> {
        const held = ctx.requestHeader.get(HELD_REPLICAS_HEADER);
        dials.push(held);
        if (replica && held?.split(',').includes(replica.id))
          throw new ConnectError(`the agent already holds a tunnel to replica ${replica.id}`, Code.AlreadyExists);
        const hello = { clusterId: 'c-1', replicaId: replica?.id ?? '', replicaCount: replica?.count ?? 0 };
        yield { frames: [{ streamId: 0, kind: { case: 'hello', value: hello } }] };
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

async function agentOf(t: Test, url: string, options: { backoffInitialMs: number; backoffMaxMs: number }) {
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
    proxyTunnelUrl: url,
    clusterId: 'c-1',
    agentToken: 'token',
    kube,
    backoffResetMs: 60_000,
    syncIntervalMs: 20,
    log: quiet,
    ...options,
  });
  t.teardown(() => agent.stop(0));
  return agent;
}

t.test('a proxy that names no replicas gets one tunnel, as before', async (t) => {
  const proxy = await fakeProxy(t);
  const agent = await agentOf(t, proxy.url, { backoffInitialMs: 20, backoffMaxMs: 50 });
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

t.test('a dial refused as a duplicate is dialled again within the sync interval, its backoff not grown', async (t) => {
  // One replica announcing two: every dial after the first reaches the replica the agent holds.
  const proxy = await fakeProxy(t, { id: 'proxy-0', count: 2 });
  // A backoff of 10 s: were a duplicate a failure, the agent would dial once or twice in this test.
  const agent = await agentOf(t, proxy.url, { backoffInitialMs: 10_000, backoffMaxMs: 10_000 });
  await until('ten dials', () => (proxy.dials.length >= 10 ? true : undefined), 5000, 10);
  t.same(agent.replicas, ['proxy-0']);
  t.equal(agent.target, 2);
  t.equal(proxy.dials[0], null, 'the first dial names no held replica');
  t.same(new Set(proxy.dials.slice(1)), new Set(['proxy-0']), 'every later dial names the replica it holds');
  t.equal(agent.lastError, undefined, 'a duplicate is not a failure');
});
