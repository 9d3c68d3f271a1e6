import t from 'tap';
import {
  ConfigError,
  createServiceApp,
  forwardedPrefix,
  httpTimeouts,
  proxyTrust,
  trustProxyVar,
} from '@gsp/service-kit';

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
    t.match(refusal(raw), /^TRUST_PROXY: must be true, false or a comma list/, raw);
  t.match(refusal('10.0.0.1, 10.0.0.300'), /"10\.0\.0\.300" is none of these/);
});

t.test('a peer is trusted when its address is listed or falls in a listed range', async (t) => {
  const trusts = proxyTrust('10.0.0.0/8,192.0.2.1,fd00::/8,loopback');
  for (const address of ['10.1.2.3', '192.0.2.1', 'fd12::1', '127.0.0.1', '127.9.9.9', '::1', '::ffff:10.0.0.1'])
    t.ok(trusts(address), `${address} trusted`);
  for (const address of ['11.0.0.1', '192.0.2.2', 'fe80::1', '::2', '203.0.113.7', 'not-an-ip', '', undefined])
    t.notOk(trusts(address), `${String(address)} not trusted`);
  t.notOk(proxyTrust(false)('127.0.0.1'));
  t.ok(proxyTrust(true)('203.0.113.7'));
  t.ok(proxyTrust('linklocal')('169.254.1.1'));
  t.ok(proxyTrust('uniquelocal')('172.16.5.4'));
});

t.test("Fastify believes a listed proxy's X-Forwarded-For and -Proto, and nobody else's", async (t) => {
  for (const [raw, expected] of [
    ['127.0.0.1', '203.0.113.7'],
    ['loopback', '203.0.113.7'],
    ['true', '203.0.113.7'],
    ['10.0.0.0/8', '127.0.0.1'],
    [undefined, '127.0.0.1'],
  ] as const) {
    const app = createServiceApp({
      logger: false,
      bodyLimit: 1024,
      http: httpTimeouts({}),
      longestPathIdentifier: 10,
      trustProxy: trustProxyVar({ TRUST_PROXY: raw }),
    });
    app.get('/', (request) => ({ ip: request.ip, protocol: request.protocol }));
    const res = await app.inject({
      url: '/',
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' },
    });
    const trusted = expected !== '127.0.0.1';
    t.same(res.json(), { ip: expected, protocol: trusted ? 'https' : 'http' }, `TRUST_PROXY=${String(raw)}`);
    await app.close();
  }
});

t.test('X-Forwarded-Prefix is a plain path without its trailing slash, or nothing', async (t) => {
  t.equal(forwardedPrefix('/gsp'), '/gsp');
  t.equal(forwardedPrefix('/gsp/'), '/gsp');
  t.equal(forwardedPrefix('/a/b-c_d.e~f'), '/a/b-c_d.e~f');
  t.equal(forwardedPrefix('/outer, /gsp'), '/gsp', "several proxies: the last one's");
  t.equal(forwardedPrefix(['/outer', '/gsp']), '/gsp');
  for (const bad of [
    undefined,
    '',
    '/',
    'gsp',
    '//evil.example',
    '/a//b',
    '/../x',
    '/a/..',
    '/%2e%2e',
    '/a?b',
    '/a#b',
    '/a b',
    '/a\r\nb',
    `/${'a'.repeat(300)}`,
  ])
    t.equal(forwardedPrefix(bad), '', JSON.stringify(bad));
});
