import t from 'tap';
import type { ServerResponse } from 'node:http';
import { bodyOf, fakeApiServer, redisPrefix, responseTo, startStack, TEST_REDIS_URL, until } from './stack.js';
import { POLICY } from './workload.js';
import type { Stack } from './stack.js';

/** What a client read of a streamed answer before it ended: whole (the final chunk came) or cut off. */
interface Read {
  complete: boolean;
  body: string;
}

/** Starts a GET through the proxy and resolves once its answer has begun, with how it will end. */
async function stream(stack: Stack, id: string, path: string, token: string): Promise<{ ended: Promise<Read> }> {
  const res = await responseTo(stack.proxyRequest(id, path, token));
  const body = bodyOf(res);
  res.on('error', () => undefined);
  return { ended: new Promise((done) => res.on('close', () => done({ complete: res.complete, body: body() }))) };
}

t.test('a stream cut by the switch ends with an ERROR event only where kubectl can read one', async (t) => {
  const redis = { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() };
  const stack = await startStack(t, {
    clusters: 0,
    apiEnv: redis,
    proxyEnv: { ...redis, SERVICE_CACHE_FLAGS_TTL: '60s' },
  });
  const open = new Set<ServerResponse>();
  const started = (res: ServerResponse, type: string, first: string | Buffer) => {
    open.add(res);
    res.writeHead(200, { 'content-type': type, 'transfer-encoding': 'chunked' });
    res.write(first);
  };
  const kubeUrl = await fakeApiServer(t, (req, res) => {
    const url = req.url ?? '';
    const event =
      JSON.stringify({ type: 'ADDED', object: { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p' } } }) + '\n';
    if (url.startsWith('/api/v1/namespaces/default/pods?')) return started(res, 'application/json', event);
    if (url.startsWith('/api/v1/namespaces/default/configmaps?'))
      return started(res, 'application/json', event.slice(0, 20));
    // Length-prefixed protobuf frames; this one happens to end in a newline byte.
    const protobuf = 'application/vnd.kubernetes.protobuf;stream=watch';
    if (url.startsWith('/api/v1/namespaces/default/secrets?'))
      return started(res, protobuf, Buffer.from([0, 0, 0, 2, 0x6b, 0x0a]));
    if (url.startsWith('/api/v1/namespaces/default/pods/p/log?')) return started(res, 'text/plain', 'a log line\n');
    res.writeHead(404).end();
  });
  t.teardown(() => {
    for (const res of open) res.destroy();
  });
  const { id, token } = await stack.addCluster('fake', kubeUrl);

  const json = await stream(stack, id, '/api/v1/namespaces/default/pods?watch=1', token);
  const midEvent = await stream(stack, id, '/api/v1/namespaces/default/configmaps?watch=true', token);
  const protobuf = await stream(stack, id, '/api/v1/namespaces/default/secrets?watch=true', token);
  const logs = await stream(stack, id, '/api/v1/namespaces/default/pods/p/log?follow=true', token);
  t.equal((await stack.setSwitch(false, id)).statusCode, 200);
  await until('the tunnel to close', () => (stack.proxy.registry.get(id) === undefined ? true : undefined));

  const ended = await json.ended;
  t.ok(ended.complete, 'a JSON watch at an event boundary ends cleanly');
  const lines = ended.body.trimEnd().split('\n');
  t.equal(lines.length, 2, 'one more line after the event');
  const message = `${POLICY} for cluster ${id}: set by a platform admin for this cluster`;
  t.match(JSON.parse(lines[1] ?? ''), {
    type: 'ERROR',
    object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Gone', message },
  });

  for (const [what, read] of [
    ['a JSON watch cut mid-event', midEvent],
    ['a protobuf watch', protobuf],
    ['a followed log', logs],
  ] as const) {
    const cut = await read.ended;
    t.notOk(cut.complete, `${what} is aborted, so the client knows it is incomplete`);
    t.notMatch(cut.body, 'ERROR', `${what} gets nothing appended`);
  }
});
