import t from 'tap';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { applyHttpTimeouts, ConfigError, httpTimeouts } from '@gsp/service-kit';

t.test('HTTP timeouts have documented defaults and take the duration grammar', async (t) => {
  t.same(httpTimeouts({}), { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 72_000 });
  t.same(httpTimeouts({ HTTP_HEADERS_TIMEOUT: '2s', HTTP_REQUEST_TIMEOUT: '1m', HTTP_KEEP_ALIVE_TIMEOUT: '5s' }), {
    headersTimeoutMs: 2000,
    requestTimeoutMs: 60_000,
    keepAliveTimeoutMs: 5000,
  });
});

t.test('the headers timeout never exceeds the request timeout (Node refuses that)', async (t) => {
  t.equal(httpTimeouts({ HTTP_REQUEST_TIMEOUT: '1s' }).headersTimeoutMs, 1000);
});

t.test('a bad or zero timeout is a configuration error naming the variable', async (t) => {
  t.throws(
    () => httpTimeouts({ HTTP_REQUEST_TIMEOUT: '0' }),
    new ConfigError('HTTP_REQUEST_TIMEOUT', 'must be at least 100 ms, got "0"'),
  );
  t.throws(() => httpTimeouts({ HTTP_HEADERS_TIMEOUT: 'soon' }), ConfigError);
});

t.test('a client that stalls in the middle of its headers is cut off within the bound, not 30 s later', async (t) => {
  const server = createServer((_req, res) => res.end('ok'));
  const timeouts = httpTimeouts({ HTTP_HEADERS_TIMEOUT: '500ms', HTTP_REQUEST_TIMEOUT: '1s' });
  applyHttpTimeouts(server, timeouts);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const started = Date.now();
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () =>
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n'),
  );
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  await new Promise((resolve) => socket.on('close', resolve));
  const elapsed = Date.now() - started;
  t.match(answer, /^HTTP\/1\.1 408 /, 'answered 408 Request Timeout');
  t.ok(elapsed >= 450 && elapsed < 1500, `closed after ${elapsed} ms (headers timeout 500 ms, not 30 s)`);
});
