import t from 'tap';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOfrepResolver } from '../src/ofrep.js';
import type { OfrepResolver } from '../src/ofrep.js';
import { FlagsClientError } from '../src/errors.js';

type Tap = { teardown(fn: () => unknown): void };

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/**
 * A small OFREP service of its own, standing in for an external product-flag service (flagd,
 * a vendor): it answers single-flag evaluations from a table, the way the spec says.
 */
async function ofrepService(
  t: Tap,
  flags: Record<string, unknown>,
  hang = new Set<string>(),
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const held = new Set<ServerResponse>();
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      const body: unknown = JSON.parse(raw || '{}');
      seen.push({ path, headers: req.headers, body });
      const key = decodeURIComponent(path.replace(/^\/ofrep\/v1\/evaluate\/flags\//, ''));
      if (hang.has(key)) return held.add(res);
      const context = (body as { context?: Record<string, unknown> }).context ?? {};
      if (context.org !== undefined && typeof context.org !== 'string')
        return json(res, 400, { key, errorCode: 'INVALID_CONTEXT', errorDetails: 'org must be a string' });
      if (!(key in flags))
        return json(res, 404, { key, errorCode: 'FLAG_NOT_FOUND', errorDetails: `flag ${key} not found` });
      if (flags[key] === 'boom') return json(res, 500, { errorDetails: 'internal' });
      const value = flags[key];
      json(res, 200, {
        key,
        value,
        reason: 'TARGETING_MATCH',
        variant: value === true ? 'on' : 'off',
        metadata: { team: 'web', nested: { dropped: true } },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function resolver(t: Tap, options: Parameters<typeof createOfrepResolver>[0]): OfrepResolver {
  const r = createOfrepResolver(options);
  t.teardown(() => r.close());
  return r;
}

t.test('a flag the service knows resolves to its value, reason, variant and metadata', async (t) => {
  const service = await ofrepService(t, { 'checkout.new_flow': true, 'search.v2': false });
  const r = resolver(t, { url: service.url });
  t.same(await r.resolveBoolean('checkout.new_flow'), {
    value: true,
    reason: 'TARGETING_MATCH',
    variant: 'on',
    errorCode: undefined,
    errorMessage: undefined,
    flagMetadata: { team: 'web' },
  });
  t.match(
    await r.resolveBoolean('search.v2', {}, true),
    { value: false, variant: 'off', errorCode: undefined },
    'an explicit false wins over a default of true',
  );
});

t.test('a key the service does not know resolves to undefined, so the caller applies its own default', async (t) => {
  const service = await ofrepService(t, {});
  const r = resolver(t, { url: service.url });
  t.equal(await r.resolveBoolean('nobody.knows', {}, true), undefined);
});

t.test('the context and the configured headers reach the service', async (t) => {
  const service = await ofrepService(t, { 'checkout.new_flow': true });
  let n = 0;
  const r = resolver(t, {
    url: `${service.url}/`,
    headers: { authorization: 'Bearer static' },
    headersFactory: () => ({ 'x-request-number': String(++n) }),
  });
  await r.resolveBoolean('checkout.new_flow', {
    targetingKey: 'user-1',
    org: 'acme',
    clusterId: undefined,
    beta: true,
  });
  const [request] = service.seen;
  t.equal(request?.path, '/ofrep/v1/evaluate/flags/checkout.new_flow', 'a trailing slash on the URL does not double');
  t.same(
    request?.body,
    { context: { targetingKey: 'user-1', org: 'acme', beta: true } },
    'undefined attributes are dropped',
  );
  t.equal(request?.headers.authorization, 'Bearer static');
  t.equal(request?.headers['x-request-number'], '1');
  t.match(request?.headers['content-type'], /^application\/json/);
});

t.test('an INVALID_CONTEXT answer serves the default with its error code', async (t) => {
  const service = await ofrepService(t, { 'checkout.new_flow': true });
  const r = resolver(t, { url: service.url });
  t.match(await r.resolveBoolean('checkout.new_flow', { org: 42 }, false), {
    value: false,
    reason: 'ERROR',
    errorCode: 'INVALID_CONTEXT',
    errorMessage: 'org must be a string',
  });
});

t.test('a value of another type is a TYPE_MISMATCH and serves the default', async (t) => {
  const service = await ofrepService(t, { 'banner.text': 'hello' });
  const r = resolver(t, { url: service.url });
  t.match(await r.resolveBoolean('banner.text', {}, true), { value: true, errorCode: 'TYPE_MISMATCH' });
});

t.test('a failing service serves the default with GENERAL instead of throwing', async (t) => {
  const service = await ofrepService(t, { broken: 'boom' });
  const r = resolver(t, { url: service.url });
  t.match(await r.resolveBoolean('broken', {}, true), { value: true, errorCode: 'GENERAL' }, '500');
  const down = resolver(t, { url: 'http://127.0.0.1:1' });
  t.match(await down.resolveBoolean('anything', {}, true), { value: true, errorCode: 'GENERAL' }, 'connection refused');
});

t.test('a service that does not answer in time serves the default after timeoutMs', async (t) => {
  const service = await ofrepService(t, {}, new Set(['slow']));
  const r = resolver(t, { url: service.url, timeoutMs: 150 });
  const started = performance.now();
  const result = await r.resolveBoolean('slow', {}, true);
  const elapsed = performance.now() - started;
  t.match(result, { value: true, errorCode: 'GENERAL' });
  t.ok(elapsed >= 140 && elapsed < 2000, `gave up after ${Math.round(elapsed)} ms`);
});

t.test('two resolvers never see each other’s service', async (t) => {
  const a = await ofrepService(t, { shared: true });
  const b = await ofrepService(t, { shared: false });
  const ra = resolver(t, { url: a.url });
  const rb = resolver(t, { url: b.url });
  t.equal((await ra.resolveBoolean('shared'))?.value, true);
  t.equal((await rb.resolveBoolean('shared'))?.value, false);
  await rb.close();
  t.equal((await ra.resolveBoolean('shared'))?.value, true, 'closing one leaves the other working');
  t.equal(a.seen.length, 2);
  t.equal(b.seen.length, 1);
});

t.test('a closed resolver rejects with ERR_FLAGS_CLOSED', async (t) => {
  const service = await ofrepService(t, { x: true });
  const r = createOfrepResolver({ url: service.url });
  await r.close();
  await r.close();
  await t.rejects(r.resolveBoolean('x'), { name: 'FlagsClientError', code: 'ERR_FLAGS_CLOSED' });
});

t.test('bad options fail at construction with a message naming the option', async (t) => {
  const bad: Array<[unknown, RegExp]> = [
    [undefined, /options\.url must be a string/],
    [{ url: 'flags.internal:8016' }, /options\.url must use http: or https:/],
    [{ url: 'not a url' }, /options\.url must be an absolute URL/],
    [{ url: 'http://flags/?x=1' }, /must not have a query/],
    [{ url: 'http://flags', timeoutMs: 0 }, /options\.timeoutMs must be a finite number > 0/],
    [{ url: 'http://flags', headers: { authorization: 1 } }, /options\.headers\.authorization must be a string/],
    [{ url: 'http://flags', headersFactory: 'x' }, /options\.headersFactory must be a function/],
  ];
  for (const [options, message] of bad) {
    t.throws(() => createOfrepResolver(options as Parameters<typeof createOfrepResolver>[0]), message);
    try {
      createOfrepResolver(options as Parameters<typeof createOfrepResolver>[0]);
    } catch (err) {
      t.ok(err instanceof FlagsClientError && err.code === 'ERR_FLAGS_OPTIONS', 'code ERR_FLAGS_OPTIONS');
    }
  }
});
