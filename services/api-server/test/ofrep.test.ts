import t from 'tap';
import { randomUUID } from 'node:crypto';
import { get } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { NOOP_PROVIDER, OpenFeature } from '@openfeature/server-sdk';
import type { Client, EvaluationContext } from '@openfeature/server-sdk';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import {
  bearer,
  build,
  PLATFORM_ADMIN,
  redisPrefix,
  registerCluster,
  seedTenant,
  TEST_REDIS_URL,
  token,
  until,
} from './helper.js';

type Tap = { teardown(fn: () => unknown): void };

const FLAG = 'cli_access.enabled';
const silent = { error() {}, warn() {}, info() {}, debug() {} };

/** The API server on a real socket, as OFREP clients reach it. */
async function serve(
  t: Tap,
  env: Record<string, string | undefined> = {},
  databaseUrl?: string,
): Promise<{ app: FastifyInstance; base: string; databaseUrl: string }> {
  const built = await build(t, env, databaseUrl === undefined ? undefined : async () => databaseUrl);
  const app = built.app;
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return {
    app,
    base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    databaseUrl: built.databaseUrl,
  };
}

/** A real OpenFeature client on the real OFREP provider, bound to a domain of its own. */
async function openFeatureClient(t: Tap, base: string, subject: string): Promise<Client> {
  const domain = `ofrep-test-${randomUUID()}`;
  await OpenFeature.setProviderAndWait(
    domain,
    new OFREPProvider({ baseUrl: base, headers: { authorization: `Bearer ${await token(subject)}` } }),
  );
  t.teardown(() => OpenFeature.setProviderAndWait(domain, NOOP_PROVIDER));
  const client = OpenFeature.getClient(domain);
  client.setLogger(silent);
  return client;
}

const put = async (app: FastifyInstance, url: string, value: boolean) => {
  const res = await app.inject({ method: 'PUT', url, headers: await bearer(PLATFORM_ADMIN), payload: { value } });
  if (res.statusCode !== 200) throw new Error(`PUT ${url}: ${res.statusCode} ${res.body}`);
};
const platformUrl = `/api/v1/platform/feature-flags/${FLAG}`;
const clusterUrl = (id: string) => `/api/v1/tenants/acme/clusters/${id}/feature-flags/${FLAG}`;

async function post(
  base: string,
  path: string,
  body: string | undefined,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** A minimal Server-Sent Events reader over fetch (Node 20 has no EventSource). */
async function openStream(t: Tap, url: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  t.teardown(() => controller.abort());
  const messages: Array<SseMessage & { at: number }> = [];
  let ended = false;
  const pump = (async () => {
    if (!res.body) return;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const message: SseMessage & { at: number } = { at: performance.now() };
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            const field = colon === -1 ? line : line.slice(0, colon);
            const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === '') message.comment = value;
            else if (field === 'id' || field === 'event' || field === 'data') message[field] = value;
          }
          messages.push(message);
        }
      }
    } catch {
      // aborted by the test
    }
    ended = true;
  })();
  return {
    res,
    messages,
    get ended() {
      return ended;
    },
    pump,
    /** The first event (not comment) after index `from`. */
    event: (from: number, ms = 1000) =>
      until('an SSE event', () => messages.slice(from).find((m) => m.data !== undefined), ms, 1),
  };
}

t.test('an OpenFeature client reads the kill switch at platform scope, and a PUT changes what it reads', async (t) => {
  const { app, base } = await serve(t);
  const client = await openFeatureClient(t, base, 'anyone');

  // The caller's default is false: true can only come from the server's explicit value.
  t.same(await client.getBooleanDetails(FLAG, false), {
    flagKey: FLAG,
    flagMetadata: { source: 'default', envPinned: false, stale: false },
    value: true,
    reason: 'STATIC',
    variant: 'on',
  });
  await put(app, platformUrl, false);
  t.match(await client.getBooleanDetails(FLAG, true), {
    value: false,
    reason: 'STATIC',
    variant: 'off',
    errorCode: undefined,
    flagMetadata: { source: 'platform' },
  });
  await put(app, platformUrl, true);
  t.equal(await client.getBooleanValue(FLAG, false), true);
});

t.test('an OpenFeature client reads a cluster override, and PUTs at both scopes change what it reads', async (t) => {
  const { app, base } = await serve(t);
  await seedTenant(app, 'acme', { alice: 'viewer' });
  const cluster = await registerCluster(app, 'acme', 'prod');
  const client = await openFeatureClient(t, base, 'alice');
  const context: EvaluationContext = { targetingKey: 'alice', org: 'acme', clusterId: cluster.id };

  t.match(await client.getBooleanDetails(FLAG, false, context), {
    value: true,
    reason: 'STATIC',
    flagMetadata: { source: 'default' },
  });
  await put(app, platformUrl, false);
  t.match(await client.getBooleanDetails(FLAG, true, context), {
    value: false,
    reason: 'STATIC',
    variant: 'off',
    flagMetadata: { source: 'platform' },
  });
  await put(app, clusterUrl(cluster.id), true);
  t.match(await client.getBooleanDetails(FLAG, false, context), {
    value: true,
    reason: 'TARGETING_MATCH',
    variant: 'on',
    flagMetadata: { source: 'cluster' },
  });
  t.match(
    await client.getBooleanDetails(FLAG, true, { targetingKey: 'alice' }),
    { value: false, flagMetadata: { source: 'platform' } },
    'without the cluster the platform default applies',
  );
});

t.test('an environment pin is what OFREP clients read, whatever was written', async (t) => {
  const { app, base } = await serve(t, { SERVICE_CLI_ACCESS_ENABLED: 'false' });
  const client = await openFeatureClient(t, base, 'anyone');
  await put(app, platformUrl, true);
  t.match(await client.getBooleanDetails(FLAG, true), {
    value: false,
    reason: 'STATIC',
    variant: 'off',
    flagMetadata: { source: 'env', envPinned: true },
  });
});

t.test('an unknown flag is FLAG_NOT_FOUND: the SDK reports it and returns its own default', async (t) => {
  const { base } = await serve(t);
  const client = await openFeatureClient(t, base, 'anyone');
  t.match(await client.getBooleanDetails('no.such.flag', true), {
    value: true,
    reason: 'ERROR',
    errorCode: 'FLAG_NOT_FOUND',
    errorMessage: 'flag no.such.flag is not defined',
  });

  const res = await post(base, '/ofrep/v1/evaluate/flags/no.such.flag', '{"context":{}}', await bearer('anyone'));
  t.equal(res.status, 404);
  t.match(res.headers.get('content-type'), /^application\/json/);
  t.same(JSON.parse(res.text), {
    key: 'no.such.flag',
    errorCode: 'FLAG_NOT_FOUND',
    errorDetails: 'flag no.such.flag is not defined',
  });
  const slashed = await post(base, '/ofrep/v1/evaluate/flags/a/b', '{}', await bearer('anyone'));
  t.same(
    [slashed.status, JSON.parse(slashed.text).errorCode, JSON.parse(slashed.text).key],
    [404, 'FLAG_NOT_FOUND', 'a/b'],
    'a key with a slash too',
  );
});

t.test('a context the server cannot use is INVALID_CONTEXT in the SDK', async (t) => {
  const { app, base } = await serve(t);
  await seedTenant(app, 'acme', { alice: 'operator' });
  const client = await openFeatureClient(t, base, 'alice');
  const cases: Array<[EvaluationContext, string]> = [
    [{ clusterId: 'c-1' }, 'context.clusterId requires context.org, the tenant the cluster belongs to'],
    [{ org: 42 }, 'context.org must be a string of 1 to 253 characters'],
    [{ org: 'acme', clusterId: 'does-not-exist' }, 'cluster does-not-exist does not exist in tenant acme'],
  ];
  for (const [context, message] of cases) {
    t.match(
      await client.getBooleanDetails(FLAG, true, context),
      { value: true, reason: 'ERROR', errorCode: 'INVALID_CONTEXT', errorMessage: message },
      JSON.stringify(context),
    );
  }
  const res = await post(
    base,
    `/ofrep/v1/evaluate/flags/${FLAG}`,
    JSON.stringify({ context: { clusterId: 'c-1' } }),
    await bearer('alice'),
  );
  t.equal(res.status, 400);
  t.same(JSON.parse(res.text), { key: FLAG, errorCode: 'INVALID_CONTEXT', errorDetails: cases[0]![1] });
});

t.test('a single evaluation answers the exact OFREP body, with or without a context', async (t) => {
  const { base } = await serve(t);
  const headers = await bearer('anyone');
  const expected = {
    key: FLAG,
    value: true,
    reason: 'STATIC',
    variant: 'on',
    metadata: { source: 'default', envPinned: false, stale: false },
  };
  for (const body of ['{"context":{"targetingKey":"u-1","plan":"gold"}}', '{}', undefined]) {
    const res = await post(base, `/ofrep/v1/evaluate/flags/${FLAG}`, body, headers);
    t.equal(res.status, 200, String(body));
    t.match(res.headers.get('content-type'), /^application\/json/);
    t.same(JSON.parse(res.text), expected, String(body));
  }
});

t.test('no or a bad bearer token is 401 and a foreign tenant is 403, both without a body', async (t) => {
  const { app, base } = await serve(t);
  await seedTenant(app, 'acme', { alice: 'operator' });
  await seedTenant(app, 'globex', { bob: 'admin' });
  const cluster = await registerCluster(app, 'acme', 'prod');
  const single = `/ofrep/v1/evaluate/flags/${FLAG}`;
  const bulk = '/ofrep/v1/evaluate/flags';
  for (const path of [single, bulk]) {
    for (const headers of [{}, { authorization: 'Bearer not-a-jwt' }] as Array<Record<string, string>>) {
      const res = await post(base, path, '{}', headers);
      t.equal(res.status, 401, `${path} ${JSON.stringify(headers)}`);
      t.equal(res.text, '', 'no body');
      t.equal(res.headers.get('content-type'), null, 'no content type');
      t.match(res.headers.get('www-authenticate'), /^Bearer realm="gsp-api"/);
    }
    const forbidden = await post(
      base,
      path,
      JSON.stringify({ context: { org: 'acme', clusterId: cluster.id } }),
      await bearer('bob'),
    );
    t.equal(forbidden.status, 403, `${path} for a member of another tenant`);
    t.equal(forbidden.text, '');
    t.equal(forbidden.headers.get('content-type'), null);
  }
  const admin = await post(
    base,
    single,
    JSON.stringify({ context: { org: 'acme', clusterId: cluster.id } }),
    await bearer(PLATFORM_ADMIN),
  );
  t.equal(admin.status, 200, 'a platform admin may evaluate any cluster');

  const client = await openFeatureClient(t, base, 'bob');
  t.match(
    await client.getBooleanDetails(FLAG, false, { org: 'acme', clusterId: cluster.id }),
    { value: false, errorCode: 'GENERAL' },
    'the SDK serves its default on a 403',
  );
});

t.test('a body that is not JSON, or not an object, is PARSE_ERROR', async (t) => {
  const { base } = await serve(t);
  const headers = await bearer('anyone');
  const single = await post(base, `/ofrep/v1/evaluate/flags/${FLAG}`, '{"context":', headers);
  t.equal(single.status, 400);
  t.match(JSON.parse(single.text), { key: FLAG, errorCode: 'PARSE_ERROR', errorDetails: String });
  t.same(Object.keys(JSON.parse(single.text)).sort(), ['errorCode', 'errorDetails', 'key']);
  const bulk = await post(base, '/ofrep/v1/evaluate/flags', '{"context":', headers);
  t.equal(bulk.status, 400);
  t.same(Object.keys(JSON.parse(bulk.text)).sort(), ['errorCode', 'errorDetails'], 'the bulk failure has no key');
  t.equal(JSON.parse(bulk.text).errorCode, 'PARSE_ERROR');
  const array = await post(base, `/ofrep/v1/evaluate/flags/${FLAG}`, '[]', headers);
  t.same(JSON.parse(array.text), {
    key: FLAG,
    errorCode: 'PARSE_ERROR',
    errorDetails: 'the request body must be a JSON object',
  });
  const text = await fetch(`${base}/ofrep/v1/evaluate/flags/${FLAG}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'text/plain' },
    body: 'hi',
  });
  t.equal(text.status, 400, 'a body that is not JSON at all');
  t.match(await text.json(), { key: FLAG, errorCode: 'PARSE_ERROR' });
});

t.test("a body over the limit is 413 in OFREP's error shape, not a PARSE_ERROR", async (t) => {
  const { base } = await serve(t);
  const headers = await bearer('anyone');
  const big = JSON.stringify({ context: { targetingKey: 'x'.repeat(1024 * 1024) } });
  for (const path of [`/ofrep/v1/evaluate/flags/${FLAG}`, '/ofrep/v1/evaluate/flags']) {
    const res = await post(base, path, big, headers);
    t.equal(res.status, 413, path);
    t.same(Object.keys(JSON.parse(res.text)), ['errorDetails'], `${path}: OFREP's general error shape`);
    t.match(JSON.parse(res.text).errorDetails, /larger than 16384 bytes/, path);
  }
});

t.test(
  'bulk evaluation lists every flag with an ETag, and answers 304 without a body while it still matches',
  async (t) => {
    const { app, base } = await serve(t);
    const headers = await bearer('anyone');
    const first = await post(base, '/ofrep/v1/evaluate/flags', '{"context":{"targetingKey":"u-1"}}', headers);
    t.equal(first.status, 200);
    const etag = first.headers.get('etag');
    t.match(etag, /^"[A-Za-z0-9_-]{43}"$/, 'a strong ETag');
    t.same(JSON.parse(first.text), {
      flags: [
        {
          key: FLAG,
          value: true,
          reason: 'STATIC',
          variant: 'on',
          metadata: { source: 'default', envPinned: false, stale: false },
        },
      ],
      eventStreams: [{ type: 'sse', url: `${base}/ofrep/v1/events` }],
    });

    for (const ifNoneMatch of [etag!, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await post(base, '/ofrep/v1/evaluate/flags', '{"context":{"targetingKey":"u-1"}}', {
        ...headers,
        'if-none-match': ifNoneMatch,
      });
      t.equal(again.status, 304, `If-None-Match: ${ifNoneMatch}`);
      t.equal(again.text, '', 'no body');
      t.equal(again.headers.get('etag'), etag);
    }
    const stale = await post(base, '/ofrep/v1/evaluate/flags', '{}', {
      ...headers,
      'if-none-match': '"something-else"',
    });
    t.equal(stale.status, 200, 'another ETag gets the full answer');

    await put(app, platformUrl, false);
    const changed = await post(base, '/ofrep/v1/evaluate/flags', '{}', { ...headers, 'if-none-match': etag! });
    t.equal(changed.status, 200, 'after a write the old ETag no longer matches');
    t.not(changed.headers.get('etag'), etag);
    t.match(JSON.parse(changed.text), { flags: [{ key: FLAG, value: false, variant: 'off' }] });
  },
);

t.test('bulk evaluation for a cluster advertises the stream for that cluster', async (t) => {
  const { app, base } = await serve(t);
  await seedTenant(app, 'acme', { alice: 'viewer' });
  const cluster = await registerCluster(app, 'acme', 'prod');
  await put(app, clusterUrl(cluster.id), false);
  const res = await post(
    base,
    '/ofrep/v1/evaluate/flags',
    JSON.stringify({ context: { org: 'acme', clusterId: cluster.id } }),
    await bearer('alice'),
  );
  t.equal(res.status, 200);
  t.same(JSON.parse(res.text), {
    flags: [
      {
        key: FLAG,
        value: false,
        reason: 'TARGETING_MATCH',
        variant: 'off',
        metadata: { source: 'cluster', envPinned: false, stale: false },
      },
    ],
    eventStreams: [{ type: 'sse', url: `${base}/ofrep/v1/events?org=acme&clusterId=${cluster.id}` }],
  });
  const invalid = await post(
    base,
    '/ofrep/v1/evaluate/flags',
    JSON.stringify({ context: { org: 'acme', clusterId: 'nope' } }),
    await bearer('alice'),
  );
  t.same(
    [invalid.status, JSON.parse(invalid.text)],
    [400, { errorCode: 'INVALID_CONTEXT', errorDetails: 'cluster nope does not exist in tenant acme' }],
  );
});

t.test('the advertised event stream sends refetchEvaluation within a second of a PUT', async (t) => {
  const { app, base } = await serve(t);
  const headers = await bearer('anyone');
  const bulk = JSON.parse((await post(base, '/ofrep/v1/evaluate/flags', '{}', headers)).text) as {
    eventStreams: Array<{ type: string; url: string }>;
  };
  const sse = bulk.eventStreams.find((s) => s.type === 'sse')!;
  const stream = await openStream(t, sse.url, headers);
  t.equal(stream.res.status, 200);
  t.match(stream.res.headers.get('content-type'), /^text\/event-stream/);
  t.equal(stream.res.headers.get('cache-control'), 'no-cache, no-transform');
  await until('the opening comment', () => (stream.messages.length > 0 ? true : undefined), 1000, 1);

  const latencies: number[] = [];
  for (const value of [false, true, false]) {
    const from = stream.messages.length;
    const started = performance.now();
    await put(app, platformUrl, value);
    const event = await stream.event(from, 1000);
    latencies.push(event.at - started);
    t.same(JSON.parse(event.data!), { type: 'refetchEvaluation' });
    t.equal(event.event, 'message');
    t.match(event.id, /^[0-9a-f]{8}-\d+$/);
    const refetched = JSON.parse((await post(base, '/ofrep/v1/evaluate/flags', '{}', headers)).text);
    t.equal(refetched.flags[0].value, value, 'the re-fetch sees the write');
  }
  t.comment(`PUT -> refetchEvaluation latency: ${latencies.map((ms) => `${ms.toFixed(1)} ms`).join(', ')}`);
  t.ok(Math.max(...latencies) < 1000);
});

t.test('with Redis, a write through another replica reaches this replica’s event stream within a second', async (t) => {
  const env = { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() };
  const writer = await serve(t, env);
  const reader = await serve(t, env, writer.databaseUrl);
  const headers = await bearer('anyone');
  const stream = await openStream(t, `${reader.base}/ofrep/v1/events`, headers);
  await until('the opening comment', () => (stream.messages.length > 0 ? true : undefined), 1000, 1);
  const started = performance.now();
  await put(writer.app, platformUrl, false);
  const event = await stream.event(0, 1000);
  t.comment(`PUT on one replica -> refetchEvaluation from the other: ${(event.at - started).toFixed(1)} ms`);
  const refetched = JSON.parse((await post(reader.base, '/ofrep/v1/evaluate/flags', '{}', headers)).text);
  t.equal(refetched.flags[0].value, false, 'and the re-fetch from that replica sees the write');
});

t.test('a cluster’s stream ignores writes to other clusters', async (t) => {
  const { app, base } = await serve(t);
  await seedTenant(app, 'acme', { alice: 'viewer' });
  const mine = await registerCluster(app, 'acme', 'prod');
  const other = await registerCluster(app, 'acme', 'staging');
  const stream = await openStream(t, `${base}/ofrep/v1/events?org=acme&clusterId=${mine.id}`, await bearer('alice'));
  await until('the opening comment', () => (stream.messages.length > 0 ? true : undefined), 1000, 1);
  await put(app, clusterUrl(other.id), false);
  const before = performance.now();
  await put(app, clusterUrl(mine.id), false);
  const event = await stream.event(0, 1000);
  t.ok(event.at > before, 'the first event came from the write to this cluster');
});

t.test('a reconnecting client (Last-Event-ID) is told to re-fetch at once', async (t) => {
  const { base } = await serve(t);
  const stream = await openStream(t, `${base}/ofrep/v1/events`, {
    ...(await bearer('anyone')),
    'last-event-id': 'deadbeef-7',
  });
  const event = await stream.event(0, 1000);
  t.same(JSON.parse(event.data!), { type: 'refetchEvaluation' });
});

t.test('the event stream is authenticated and authorised like the evaluations', async (t) => {
  const { app, base } = await serve(t);
  await seedTenant(app, 'acme', { alice: 'viewer' });
  const cluster = await registerCluster(app, 'acme', 'prod');
  const noToken = await fetch(`${base}/ofrep/v1/events`);
  t.same([noToken.status, await noToken.text()], [401, '']);
  const foreign = await fetch(`${base}/ofrep/v1/events?org=acme&clusterId=${cluster.id}`, {
    headers: await bearer('mallory'),
  });
  t.same([foreign.status, await foreign.text()], [403, '']);
  const orphan = await fetch(`${base}/ofrep/v1/events?clusterId=${cluster.id}`, { headers: await bearer('alice') });
  t.same(
    [orphan.status, await orphan.json()],
    [
      400,
      {
        errorCode: 'INVALID_CONTEXT',
        errorDetails: 'context.clusterId requires context.org, the tenant the cluster belongs to',
      },
    ],
  );
});

t.test('a client that goes away releases its change listeners', async (t) => {
  const { base, app } = await serve(t);
  // The flags client's ChangeListeners, by flag key.
  const listeners = () =>
    (app.flagsClient as unknown as { listeners: { byKey: Map<string, Set<unknown>> } }).listeners.byKey.get(FLAG)
      ?.size ?? 0;
  const baseline = listeners();
  // node:http without an agent: fetch's pool opens a spare connection on abort that delays close by seconds.
  const request = get(`${base}/ofrep/v1/events`, { headers: await bearer('anyone'), agent: false });
  request.on('error', () => {});
  const response = await new Promise<IncomingMessage>((resolve) => request.once('response', resolve));
  t.equal(response.statusCode, 200);
  await until('the stream to subscribe', () => (listeners() === baseline + 1 ? true : undefined), 1000, 1);
  request.destroy();
  await until('the listener to be released', () => (listeners() === baseline ? true : undefined), 1000, 1);
  t.pass('released');
});

t.test('closing the app ends open event streams instead of hanging', async (t) => {
  const { app, base } = await serve(t);
  const stream = await openStream(t, `${base}/ofrep/v1/events`, await bearer('anyone'));
  await until('the opening comment', () => (stream.messages.length > 0 ? true : undefined), 1000, 1);
  const started = performance.now();
  await Promise.race([
    app.close(),
    new Promise((_, reject) => setTimeout(() => reject(new Error('app.close() hung')), 3000).unref()),
  ]);
  t.ok(performance.now() - started < 3000, `closed in ${(performance.now() - started).toFixed(0)} ms`);
  await until('the stream to end', () => (stream.ended ? true : undefined), 1000, 1);
  t.pass('the client saw the stream end');
});

t.test('an unknown OFREP path is a JSON 404, never problem+json', async (t) => {
  const { base } = await serve(t);
  const res = await fetch(`${base}/ofrep/v1/configuration`, { headers: await bearer('anyone') });
  t.equal(res.status, 404);
  t.match(res.headers.get('content-type'), /^application\/json/);
  t.same(await res.json(), { errorDetails: 'No route GET /ofrep/v1/configuration' });
});
