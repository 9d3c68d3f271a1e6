import t from 'tap';
import { Writable } from 'node:stream';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { bearer, freshSchema, JWT_SECRET } from './helper.js';

type Tap = { teardown(fn: () => unknown): void };

/** The API server with TRUST_PROXY as given, and every log line it writes. */
async function start(t: Tap, trustProxy: string | undefined) {
  const { url } = await freshSchema(t);
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line));
      done();
    },
  });
  const app = await buildApp(loadConfig({ DATABASE_URL: url, AUTH_JWT_SECRET: JWT_SECRET, TRUST_PROXY: trustProxy }), {
    level: 'info',
    stream,
  });
  t.teardown(() => app.close());
  return { app, lines };
}

/** A bulk evaluation as it arrives from a TLS-terminating proxy on this host, for a client elsewhere. */
async function evaluateThroughProxy(
  t: Tap & { equal(a: unknown, b: unknown): void },
  app: Awaited<ReturnType<typeof start>>['app'],
) {
  const res = await app.inject({
    method: 'POST',
    url: '/ofrep/v1/evaluate/flags',
    remoteAddress: '127.0.0.1',
    headers: {
      ...(await bearer('anyone')),
      host: '127.0.0.1:8081',
      'x-forwarded-for': '203.0.113.7',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'flags.example',
      'x-forwarded-prefix': '/gsp',
    },
    payload: { context: { targetingKey: 'u-1' } },
  });
  t.equal(res.statusCode, 200);
  return res.json<{ eventStreams: { url: string }[] }>();
}

const clientAddresses = (lines: Record<string, unknown>[]) =>
  lines.flatMap((line) => {
    const req = line.req as { url?: string; remoteAddress?: string } | undefined;
    return req?.url === '/ofrep/v1/evaluate/flags' ? [req.remoteAddress] : [];
  });

t.test("behind a trusted proxy, the OFREP event stream is advertised at the proxy's scheme and host", async (t) => {
  const { app, lines } = await start(t, '127.0.0.1');
  const body = await evaluateThroughProxy(t, app);
  t.same(
    body.eventStreams,
    [{ type: 'sse', url: 'https://flags.example/gsp/ofrep/v1/events' }],
    'scheme, host and the path prefix the proxy stripped',
  );
  t.same(clientAddresses(lines), ['203.0.113.7'], "the request log names the client's address, not the proxy's");
});

t.test('a peer that is not a listed proxy cannot move the advertised URL or hide its address', async (t) => {
  for (const trustProxy of [undefined, 'false', '10.0.0.0/8']) {
    const { app, lines } = await start(t, trustProxy);
    const body = await evaluateThroughProxy(t, app);
    t.same(body.eventStreams, [{ type: 'sse', url: 'http://127.0.0.1:8081/ofrep/v1/events' }], `${trustProxy}`);
    t.same(clientAddresses(lines), ['127.0.0.1'], `${trustProxy}`);
  }
});

t.test('a malformed TRUST_PROXY stops the start, naming the variable', async (t) => {
  t.throws(() => loadConfig({ AUTH_JWT_SECRET: JWT_SECRET, TRUST_PROXY: '10.0.0.0/8,proxy.internal' }), {
    message: /^TRUST_PROXY: .*"proxy\.internal" is none of these/,
  });
});
