import t from 'tap';
import Fastify from 'fastify';
import { ConfigError, trustProxyVar } from '@gsp/service-kit';

function refusal(raw: string): string | undefined {
  try {
    trustProxyVar({ TRUST_PROXY: raw });
    return undefined;
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
}

t.test('unset and false trust no proxy; true trusts every peer', async (t) => {
  t.equal(trustProxyVar({}), false);
  t.equal(trustProxyVar({ TRUST_PROXY: ' ' }), false);
  t.equal(trustProxyVar({ TRUST_PROXY: 'false' }), false);
  t.equal(trustProxyVar({ TRUST_PROXY: 'true' }), true);
});

t.test('a list of addresses, CIDRs and named ranges is kept, spaces trimmed', async (t) => {
  t.equal(
    trustProxyVar({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1 ,::1,fd00::/8,loopback,uniquelocal' }),
    '10.0.0.0/8,127.0.0.1,::1,fd00::/8,loopback,uniquelocal',
  );
});

t.test('anything else stops the boot with a message naming the variable and the bad entry', async (t) => {
  for (const raw of [
    'yes',
    '1',
    'abc',
    '10.0.0.0/33',
    '::1/129',
    '10.0.0.1,',
    '10.0.0.0/8/1',
    'localhost',
    '10.0.0.0/-1',
  ])
    t.match(refusal(raw), new RegExp(`^TRUST_PROXY: must be true, false or a comma list`), raw);
  t.match(refusal('10.0.0.1, 10.0.0.300'), /"10\.0\.0\.300" is none of these/);
});

t.test("Fastify believes a listed proxy's X-Forwarded-For, and nobody else's", async (t) => {
  for (const [trust, expected] of [
    [trustProxyVar({ TRUST_PROXY: '127.0.0.1' }), '203.0.113.7'],
    [trustProxyVar({ TRUST_PROXY: 'loopback' }), '203.0.113.7'],
    [trustProxyVar({ TRUST_PROXY: '10.0.0.0/8' }), '127.0.0.1'],
    [trustProxyVar({}), '127.0.0.1'],
  ] as const) {
    const app = Fastify({ trustProxy: trust });
    app.get('/', (request) => ({ ip: request.ip, protocol: request.protocol }));
    const res = await app.inject({
      url: '/',
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' },
    });
    const body = res.json<{ ip: string; protocol: string }>();
    t.equal(body.ip, expected, `TRUST_PROXY=${String(trust)}`);
    t.equal(body.protocol, expected === '127.0.0.1' ? 'http' : 'https');
    await app.close();
  }
});
