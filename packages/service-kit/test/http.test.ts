import t from 'tap';
import { ConfigError, httpTimeouts } from '@gsp/service-kit';

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
  t.throws(() => httpTimeouts({ HTTP_REQUEST_TIMEOUT: '0' }), new ConfigError('HTTP_REQUEST_TIMEOUT', 'must be at least 100 ms, got "0"'));
  t.throws(() => httpTimeouts({ HTTP_HEADERS_TIMEOUT: 'soon' }), ConfigError);
});
