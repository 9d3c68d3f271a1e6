import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { Test } from 'tap';
import { probe } from '../src/tunnel/keepalive.js';
import { until } from './stack.js';

/** A real HTTP/2 connection: the server's session, as the proxy sees an agent's. */
async function sessionPair(t: Test) {
  const server = http2.createServer();
  const sessions: http2.ServerHttp2Session[] = [];
  server.on('session', (s) => sessions.push(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  client.on('error', () => undefined);
  t.teardown(() => {
    client.destroy();
    server.close();
  });
  const session = await until('the server session', () => sessions[0]);
  await until('the settings exchange', () => (client.remoteSettings && session.remoteSettings ? true : undefined));
  return { session, client };
}

t.test('a probe keeps a session that answers', async (t) => {
  const { session } = await sessionPair(t);
  t.equal(await probe(session, 5000), true, 'the agent answered the ping');
  t.notOk(session.destroyed);
});

t.test('a probe on a session already destroyed does nothing, rather than throw and take the proxy down', async (t) => {
  const { session } = await sessionPair(t);
  session.destroy(new Error('the agent stopped answering pings'));
  // The interval can fire between destroy() and 'close': this is the call that used to throw.
  let result: Promise<boolean> | undefined;
  t.doesNotThrow(() => (result = probe(session, 1000)));
  t.equal(await result, false);
});
