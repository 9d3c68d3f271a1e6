import t from 'tap';
import { hash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { LocalEventBus } from '@gsp/events';
import { CONSOLE_SESSION_ENDED_EVENT } from '@gsp/platform-contract';
import { EVENTS_DEFAULTS } from '../src/config/events.js';
import { EventFeed } from '../src/events/feed.js';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { Browser, signingKey, startOidcProvider } from '@gsp/test-kit/oidc';
import { CLIENT_ID, CLIENT_SECRET, signIn, startFront } from './console-auth-stack.js';
import type { ConsoleStack } from './console-auth-stack.js';
import {
  bearer,
  cuttableRedisUrl,
  freshSchema,
  JWT_SECRET,
  PLATFORM_ADMIN,
  redisPrefix,
  TEST_REDIS_URL,
  until,
} from './helper.js';

/*
 * A console sign-out ends the event streams its session opened, on every replica: two API-server
 * replicas on one schema and one Redis prefix (the relay publishing the outbox on the bus), a real
 * OpenID provider, and streams read over real HTTP as a browser's EventSource would.
 */
type Tap = { teardown(fn: () => unknown): void };

// The provider signs with a key of ours, so the test can also hold a bearer token of the same user.
const key = await signingKey('console-session-events', 'RS256');

let target = '';
const front = await startFront(t, () => target);
const publicUrl = `${front}/console/`;
const provider = await startOidcProvider(t, {
  clients: [{ id: CLIENT_ID, secret: CLIENT_SECRET, redirectUri: `${publicUrl}auth/callback` }],
  keys: [key],
});
const issuer = provider.issuer;

const { url: databaseUrl } = await freshSchema(t);
const env = {
  DATABASE_URL: databaseUrl,
  AUTH_JWT_SECRET: JWT_SECRET,
  AUTH_OIDC_ISSUER_URL: issuer,
  AUTH_OIDC_AUDIENCE: 'gsp-api',
  PLATFORM_ADMINS: PLATFORM_ADMIN,
  CONSOLE_OIDC_CLIENT_ID: CLIENT_ID,
  CONSOLE_OIDC_CLIENT_SECRET: CLIENT_SECRET,
  CONSOLE_PUBLIC_URL: publicUrl,
  REDIS_URL: TEST_REDIS_URL,
  REDIS_KEY_PREFIX: redisPrefix(),
};
const sessionHashOf = (browser: Browser): string => hash('sha256', browser.cookie(front, 'gsp_session')!, 'base64url');
const replicas: { app: FastifyInstance; url: string }[] = [];
for (let i = 0; i < 2; i++) {
  const app = await buildApp(loadConfig(env), false);
  t.teardown(() => app.close());
  replicas.push({ app, url: await app.listen({ port: 0, host: '127.0.0.1' }) });
}
const [a, b] = [replicas[0]!, replicas[1]!];
target = a.url;
const stack: ConsoleStack = {
  issuer,
  publicUrl,
  front,
  replicas,
  route: (i) => {
    target = replicas[i]!.url;
  },
  databaseUrl,
};
const db = new pg.Pool({ connectionString: databaseUrl, max: 1 });
t.teardown(() => db.end());

/** A bearer token the provider could have issued to alice for the API. */
const aliceBearer = async (): Promise<{ authorization: string }> => ({
  authorization: `Bearer ${await provider.sign(key, 'alice', {}, { aud: 'gsp-api', exp: '1h' })}`,
});

async function signedIn(): Promise<Browser> {
  const browser = new Browser();
  const { response } = await signIn(browser, stack, 'alice');
  if (response.status !== 303) throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  return browser;
}

/** A client holding `GET /api/v1/events` open, recording each frame's `event` and `data`. */
class Stream {
  readonly events: { event: string; data: unknown }[] = [];
  ended = false;
  endedAt = 0;

  static async open(t: Tap, url: string, headers: Record<string, string>): Promise<Stream> {
    const abort = new AbortController();
    t.teardown(() => abort.abort());
    const res = await fetch(`${url}/api/v1/events`, { headers, signal: abort.signal });
    if (res.status !== 200 || res.body === null) throw new Error(`events: ${res.status} ${await res.text()}`);
    const stream = new Stream();
    let opened = false;
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of res.body!) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (frame === ': gsp events') opened = true;
            const event = /^event: (.*)$/m.exec(frame)?.[1];
            const data = /^data: (.*)$/m.exec(frame)?.[1];
            if (event !== undefined) stream.events.push({ event, data: JSON.parse(data ?? 'null') });
          }
        }
      } catch {
        // aborted by the teardown
      }
      stream.endedAt = Date.now();
      stream.ended = true;
    })();
    await until('the stream to open', () => opened || undefined, 5000);
    return stream;
  }
}

const cookieOf = (browser: Browser): Record<string, string> => ({
  cookie: browser.cookieHeader(`${front}/api/v1/events`),
});
const signOut = (browser: Browser, at: string) =>
  fetch(`${at}/console/auth/logout`, {
    method: 'POST',
    headers: { ...cookieOf(browser), 'x-gsp-console': '1', origin: new URL(publicUrl).origin },
  });

t.test("signing out on one replica closes the session's streams on another within 1 s, and only those", async (t) => {
  const browser = await signedIn();
  const other = await signedIn();
  const subjectOf = async (headers: Record<string, string>) =>
    (await b.app.inject({ url: '/api/v1/me', headers })).json<{ subject: string }>().subject;
  t.equal(await subjectOf(cookieOf(browser)), `${issuer}#alice`);
  t.equal(await subjectOf(await aliceBearer()), `${issuer}#alice`, 'the bearer token names the same user');
  const viaCookie = await Stream.open(t, b.url, cookieOf(browser));
  const otherSession = await Stream.open(t, b.url, cookieOf(other));
  const viaBearer = await Stream.open(t, b.url, await aliceBearer());
  const sameReplica = await Stream.open(t, a.url, cookieOf(browser));

  const started = Date.now();
  const res = await signOut(browser, a.url);
  t.equal(res.status, 204);
  const committed = Date.now();
  await until('the cookie stream on replica B to end', () => viaCookie.ended || undefined, 3000);
  await until('the cookie stream on replica A to end', () => sameReplica.ended || undefined, 3000);
  const elapsed = viaCookie.endedAt - started;
  t.comment(
    `sign-out on A to its stream closed on B: ${elapsed} ms from the request ` +
      `(${viaCookie.endedAt - committed} ms after its 204); on A: ${sameReplica.endedAt - started} ms`,
  );
  t.ok(elapsed < 1000, `closed on the other replica within 1 s (${elapsed} ms)`);
  t.ok(sameReplica.endedAt - started < 1000, 'and on the replica signed out on');
  t.same(viaCookie.events.at(-1), { event: 'close', data: { reason: 'signed-out' } });
  t.same(sameReplica.events.at(-1), { event: 'close', data: { reason: 'signed-out' } });

  // A change after the sign-out still reaches the bearer stream and the other session's stream.
  const admin = await bearer(PLATFORM_ADMIN);
  const put = await a.app.inject({
    method: 'PUT',
    url: '/api/v1/platform/feature-flags/cli_access.enabled',
    headers: admin,
    payload: { value: true },
  });
  t.equal(put.statusCode, 200);
  for (const [name, stream] of [
    ['the bearer stream of the same subject', viaBearer],
    ["another session's stream", otherSession],
  ] as const) {
    await until(`the flag event on ${name}`, () => stream.events.find((e) => e.event === 'flag'), 3000);
    t.notOk(stream.ended, `${name} stays open`);
    t.notOk(
      stream.events.some((e) => e.event === 'close'),
      `${name} was not closed`,
    );
  }
  const refused = await fetch(`${b.url}/api/v1/events`, { headers: cookieOf(browser) });
  await refused.text();
  t.equal(refused.status, 401, 'the signed-out cookie opens no new stream');
});

t.test('the bus carries the SHA-256 of the session id, never the id', async (t) => {
  const browser = await signedIn();
  const id = browser.cookie(front, 'gsp_session')!;
  t.equal((await signOut(browser, a.url)).status, 204);
  const { rows } = await db.query<{ payload: Record<string, unknown> }>(
    'SELECT payload FROM outbox_events WHERE event_type = $1',
    [CONSOLE_SESSION_ENDED_EVENT],
  );
  const payloads = rows.map((row) => row.payload);
  t.ok(payloads.some((p) => p.sessionHash === hash('sha256', id, 'base64url')));
  t.notOk(JSON.stringify(payloads).includes(id), 'the id is nowhere in the outbox');
  const again = await fetch(`${a.url}/console/auth/logout`, {
    method: 'POST',
    headers: { cookie: `gsp_session=${id}`, 'x-gsp-console': '1', origin: new URL(publicUrl).origin },
  });
  t.equal(again.status, 204);
  const { rows: after } = await db.query('SELECT 1 FROM outbox_events WHERE event_type = $1', [
    CONSOLE_SESSION_ENDED_EVENT,
  ]);
  t.equal(after.length, rows.length, 'a cookie naming no session announces nothing');
});

t.test('a stream whose session ended as it was being opened closes at once, signed out', async (t) => {
  const browser = await signedIn();
  const session = sessionHashOf(browser);
  // The sign-out commits after the request was authenticated, before its stream subscribed.
  t.equal((await signOut(browser, a.url)).status, 204);
  const feed = new EventFeed({ ...EVENTS_DEFAULTS, db, bus: new LocalEventBus(), platformId: 'default', log: console });
  t.teardown(() => feed.close());
  const server = createServer((_req, res) => {
    void feed
      .open(`${issuer}#alice`, undefined, session)
      .then((stream) => stream.start(res, { expiresAtMs: undefined, headers: {} }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const stream = await Stream.open(t, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, {});
  await until('the stream to end', () => stream.ended || undefined, 3000);
  t.same(stream.events, [{ event: 'close', data: { reason: 'signed-out' } }]);
});

t.test('a sign-out that a replica missed while its Redis was away closes its streams once it is back', async (t) => {
  const redis = await cuttableRedisUrl(t, TEST_REDIS_URL);
  t.teardown(() => redis.restore());
  // Its relay stays off: one that drained while cut off would hold the outbox until its publish gave up.
  const c = await buildApp(loadConfig({ ...env, REDIS_URL: redis.url, OUTBOX_RELAY_ENABLED: 'false' }), false);
  t.teardown(() => c.close());
  const url = await c.listen({ port: 0, host: '127.0.0.1' });
  const browser = await signedIn();
  const stream = await Stream.open(t, url, cookieOf(browser));

  redis.cut();
  t.equal((await signOut(browser, a.url)).status, 204);
  await until(
    'the sign-out to be published',
    async () =>
      (await db.query('SELECT 1 FROM outbox_events WHERE delivered_at IS NULL LIMIT 1')).rowCount === 0 || undefined,
    5000,
  );
  t.notOk(stream.ended, 'the replica cut off from Redis did not hear of it');
  redis.restore();
  await until('the stream to end after the reconnect', () => stream.ended || undefined, 10_000);
  t.same(stream.events.at(-1), { event: 'close', data: { reason: 'signed-out' } });
});
