import { createHash } from 'node:crypto';
import net from 'node:net';
import bcrypt from 'bcrypt';
import { Redis } from 'ioredis';
import t from 'tap';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { SESSION_ENDED } from '../../src/plugins/panel-sessions.js';
import {
  ADMIN_PASSWORD,
  ADMIN_USER,
  BASIC_ADMIN,
  build,
  createKey,
  redisPrefix,
  startKube,
  TEST_REDIS_URL,
  until,
} from '../helper.js';

const kube = await startKube(t);
const PANEL = { 'x-gsp-panel': '1' };

function signIn(
  app: FastifyInstance,
  payload: object,
  headers: Record<string, string> = PANEL,
  remoteAddress?: string,
) {
  return app.inject({
    method: 'POST',
    url: '/panel/auth/sign-in',
    headers,
    payload,
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

/** The `gsp_panel` cookie a response sets, as the browser would send it back. */
function cookieOf(res: LightMyRequestResponse): string {
  const set = String(res.headers['set-cookie'] ?? '');
  const value = /^gsp_panel=([^;]*)/.exec(set)?.[1];
  if (value === undefined) throw new Error(`no gsp_panel cookie in ${set}`);
  return `gsp_panel=${value}`;
}

async function basicSession(app: FastifyInstance): Promise<string> {
  const res = await signIn(app, { method: 'basic', username: ADMIN_USER, password: ADMIN_PASSWORD });
  if (res.statusCode !== 204) throw new Error(`sign-in: ${res.statusCode} ${res.body}`);
  return cookieOf(res);
}

const whoAmI = (app: FastifyInstance, cookie: string) => app.inject({ url: '/api/v1/session', headers: { cookie } });

t.test('Basic sign-in answers 204 with a strict HttpOnly cookie that then authenticates the API', async (t) => {
  const { app } = await build(t, kube);
  const res = await signIn(app, { method: 'basic', username: ADMIN_USER, password: ADMIN_PASSWORD });
  t.equal(res.statusCode, 204);
  const set = String(res.headers['set-cookie']);
  t.match(set, /^gsp_panel=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=28800$/);
  t.notMatch(set, /Secure/, 'not Secure without an https public URL');
  const cookie = cookieOf(res);

  const me = await whoAmI(app, cookie);
  t.equal(me.statusCode, 200);
  t.match(me.json(), { userId: ADMIN_USER, role: 'admin', authMethod: 'basic' });
  const session = (await app.inject({ url: '/panel/auth/session', headers: { cookie } })).json();
  t.match(session, { signedIn: true, authMethod: 'basic', role: 'admin' });
  t.ok(Date.parse(session.expiresAt) > Date.now() + 28_000_000, 'the session ends in 8 hours');
});

t.test('the cookie is Secure and on the proxy prefix when the public URL says so', async (t) => {
  const { app } = await build(t, kube, { PANEL_PUBLIC_URL: 'https://games.example/ops/panel/' });
  const res = await signIn(
    app,
    { method: 'basic', username: ADMIN_USER, password: ADMIN_PASSWORD },
    {
      ...PANEL,
      origin: 'https://games.example',
    },
  );
  t.equal(res.statusCode, 204);
  t.match(String(res.headers['set-cookie']), /Path=\/ops\/; HttpOnly; SameSite=Strict; Secure; Max-Age=/);
});

t.test('a wrong password is a 401 sentence without a browser challenge, and counts against the limit', async (t) => {
  const { app } = await build(t, kube, { AUTH_FAILURE_LIMIT: '2' });
  const wrong = { method: 'basic', username: ADMIN_USER, password: 'nope' };
  const first = await signIn(app, wrong, PANEL, '10.1.0.1');
  t.equal(first.statusCode, 401);
  t.match(first.headers['content-type'], /application\/problem\+json/);
  t.equal(first.json().detail, 'the user name or password is wrong');
  t.equal(first.headers['www-authenticate'], undefined, 'no Basic challenge: the browser would show its dialogue');
  t.notOk(first.headers['set-cookie']);
  t.equal((await signIn(app, wrong, PANEL, '10.1.0.1')).statusCode, 401);
  const blocked = await signIn(app, { ...wrong, password: ADMIN_PASSWORD }, PANEL, '10.1.0.1');
  t.equal(blocked.statusCode, 429, 'the failed sign-in limit is the one header credentials count against');
  t.ok(blocked.headers['retry-after']);
});

t.test('sign-in and sign-out must come from the panel: X-GSP-Panel: 1 and its origin', async (t) => {
  const { app } = await build(t, kube);
  const good = { method: 'basic', username: ADMIN_USER, password: ADMIN_PASSWORD };
  const bare = await signIn(app, good, {});
  t.equal(bare.statusCode, 403);
  t.match(bare.json().detail, /X-GSP-Panel: 1/);
  const elsewhere = await signIn(app, good, { ...PANEL, origin: 'https://evil.example' });
  t.equal(elsewhere.statusCode, 403);
  t.match(elsewhere.json().detail, /origin/);
  const logout = await app.inject({ method: 'POST', url: '/panel/auth/logout' });
  t.equal(logout.statusCode, 403);
  t.equal((await signIn(app, { method: 'basic', username: ADMIN_USER })).statusCode, 400, 'a malformed body is a 400');
});

t.test('a change made with the cookie needs X-GSP-Panel: 1 and, when sent, the panel origin', async (t) => {
  const { app } = await build(t, kube);
  const cookie = await basicSession(app);
  const post = (headers: Record<string, string>) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/apikeys',
      headers: { cookie, ...headers },
      payload: { name: `k${Date.now()}` },
    });
  const bare = await post({});
  t.equal(bare.statusCode, 403);
  t.match(bare.json().detail, /X-GSP-Panel: 1/);
  const crossOrigin = await post({ ...PANEL, origin: 'http://evil.example' });
  t.equal(crossOrigin.statusCode, 403);
  t.match(crossOrigin.json().detail, /must come from the panel's origin/);
  const read = await app.inject({ url: '/api/v1/apikeys', headers: { cookie, origin: 'http://evil.example' } });
  t.equal(read.statusCode, 403, 'a read from another origin is refused too');
  t.equal(
    (await app.inject({ url: '/api/v1/apikeys', headers: { cookie } })).statusCode,
    200,
    'a read needs no header',
  );
  t.equal((await post({ ...PANEL, origin: 'http://localhost:80' })).statusCode, 201, 'the same origin with the header');
  t.equal((await post(PANEL)).statusCode, 201, 'no Origin: same-origin by SameSite=Strict');
});

t.test('a credential header decides over the cookie', async (t) => {
  const { app } = await build(t, kube);
  const cookie = await basicSession(app);
  const res = await app.inject({ url: '/api/v1/session', headers: { cookie, 'x-api-key': 'gsp_nope' } });
  t.equal(res.statusCode, 401);
});

t.test('sign-out ends the session: the cookie is refused with a sentence and deleted', async (t) => {
  const { app } = await build(t, kube);
  const cookie = await basicSession(app);
  const out = await app.inject({ method: 'POST', url: '/panel/auth/logout', headers: { cookie, ...PANEL } });
  t.equal(out.statusCode, 204);
  t.match(String(out.headers['set-cookie']), /^gsp_panel=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/);
  const after = await whoAmI(app, cookie);
  t.equal(after.statusCode, 401);
  t.equal(after.json().detail, SESSION_ENDED);
  t.match(String(after.headers['set-cookie']), /Max-Age=0/, 'the dead cookie is deleted');
  const session = await app.inject({ url: '/panel/auth/session', headers: { cookie } });
  t.equal(session.statusCode, 200);
  t.equal(session.json().signedIn, false, 'the session route says signed out rather than 401');
  t.equal((await app.inject({ method: 'POST', url: '/panel/auth/logout', headers: PANEL })).statusCode, 204);
});

t.test('an unknown cookie value is an ended session', async (t) => {
  const { app } = await build(t, kube);
  for (const value of ['x', 'A'.repeat(43)]) {
    const res = await whoAmI(app, `gsp_panel=${value}`);
    t.equal(res.statusCode, 401);
    t.equal(res.json().detail, SESSION_ENDED);
  }
});

t.test('an API-key session lasts while its key does: a revoked key ends it', async (t) => {
  const { app } = await build(t, kube);
  const key = await createKey(app, 'panel-op', 'operator');
  const res = await signIn(app, { method: 'apikey', key });
  t.equal(res.statusCode, 204);
  const cookie = cookieOf(res);
  t.match((await whoAmI(app, cookie)).json(), { userId: 'panel-op', role: 'operator', authMethod: 'apikey' });
  const bad = await signIn(app, { method: 'apikey', key: `${key.slice(0, -4)}AAAA` });
  t.equal(bad.statusCode, 401);

  const revoked = await app.inject({ method: 'DELETE', url: '/api/v1/apikeys/panel-op', headers: BASIC_ADMIN });
  t.equal(revoked.statusCode, 204);
  const after = await until('the session to end with its key', async () => {
    const r = await whoAmI(app, cookie);
    return r.statusCode === 401 && r;
  });
  t.equal(after.json().detail, SESSION_ENDED);
});

type Tap = Parameters<typeof build>[0];

/** A control plane on the shared Redis under `prefix` (a restart is another one on the same prefix). */
async function onRedis(t: Tap, prefix: string, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const { app } = await build(t, kube, { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, ...env });
  await until('Redis to be connected', () => app.redis?.client.status === 'ready');
  return app;
}

t.test('a changed Basic password ends the panel sessions signed in with the old one, across a restart', async (t) => {
  const prefix = redisPrefix();
  const before = await onRedis(t, prefix);
  const cookie = await basicSession(before);
  const redis = new Redis(TEST_REDIS_URL);
  t.teardown(() => redis.quit());
  const [key] = await redis.keys(`${prefix}panel:session:*`);
  t.notMatch((await redis.get(key ?? '')) ?? '', ADMIN_PASSWORD, 'the session keeps no password');
  await before.close();

  const samePassword = await onRedis(t, prefix);
  t.equal((await whoAmI(samePassword, cookie)).statusCode, 200, 'a restart with the same password keeps the session');
  await samePassword.close();

  const newPassword = await onRedis(t, prefix, { AUTH_BASIC_PASSWORD: 'a new password after a leak' });
  const refused = await whoAmI(newPassword, cookie);
  t.equal(refused.statusCode, 401, 'the old cookie no longer authenticates');
  t.equal(refused.json().detail, SESSION_ENDED);
  t.match(String(refused.headers['set-cookie']), /Max-Age=0/, 'and is deleted');
  t.equal(await redis.exists(key ?? ''), 0, 'the session is ended in Redis, for every replica');
  const signedIn = await signIn(newPassword, {
    method: 'basic',
    username: ADMIN_USER,
    password: 'a new password after a leak',
  });
  t.equal((await whoAmI(newPassword, cookieOf(signedIn))).statusCode, 200, 'the new password signs in');
});

t.test('with AUTH_BASIC_PASSWORD_HASH, a session lasts while the configured hash does', async (t) => {
  const prefix = redisPrefix();
  const hash = await bcrypt.hash(ADMIN_PASSWORD, 4);
  const first = await onRedis(t, prefix, { AUTH_BASIC_PASSWORD: '', AUTH_BASIC_PASSWORD_HASH: hash });
  const cookie = await basicSession(first);
  await first.close();
  const same = await onRedis(t, prefix, { AUTH_BASIC_PASSWORD: '', AUTH_BASIC_PASSWORD_HASH: hash });
  t.equal((await whoAmI(same, cookie)).statusCode, 200, 'the same hash keeps the session');
  await same.close();
  const rotated = await bcrypt.hash('another password', 4);
  const after = await onRedis(t, prefix, { AUTH_BASIC_PASSWORD: '', AUTH_BASIC_PASSWORD_HASH: rotated });
  t.equal((await whoAmI(after, cookie)).statusCode, 401, 'another hash ends it');
});

t.test('a session ends after PANEL_SESSION_TTL_SECONDS', async (t) => {
  const { app } = await build(t, kube, { PANEL_SESSION_TTL_SECONDS: '1' });
  const cookie = await basicSession(app);
  t.equal((await whoAmI(app, cookie)).statusCode, 200);
  await until('the session to expire', async () => (await whoAmI(app, cookie)).statusCode === 401, 3000);
  t.pass('expired');
});

t.test('with Redis, only the hash of the id is stored, under the prefix, expiring with the session', async (t) => {
  const prefix = redisPrefix();
  const { app } = await build(t, kube, { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix });
  // The start waits 2 s for Redis, then goes on without it (a loaded machine may take longer).
  await until('Redis to be connected', () => app.redis?.client.status === 'ready');
  const cookie = await basicSession(app);
  const id = cookie.slice('gsp_panel='.length);
  const redis = new Redis(TEST_REDIS_URL);
  t.teardown(() => redis.quit());
  const hash = createHash('sha256').update(id).digest('hex');
  const stored = await redis.get(`${prefix}panel:session:${hash}`);
  t.ok(stored, 'stored under <prefix>panel:session:<sha256(id)>');
  t.notMatch(stored ?? '', id, 'never the id itself');
  const ttl = await redis.pttl(`${prefix}panel:session:${hash}`);
  t.ok(ttl > 28_000_000 && ttl <= 28_800_000, `expires with the session (${ttl} ms)`);
  t.equal((await whoAmI(app, cookie)).statusCode, 200);
});

t.test('with Redis down, a cookie request is a 503 sentence, never a 500 or a hang', async (t) => {
  const closed = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
  const { app } = await build(t, kube, { REDIS_URL: `redis://127.0.0.1:${closed}`, REDIS_KEY_PREFIX: redisPrefix() });
  const started = Date.now();
  const res = await whoAmI(app, `gsp_panel=${'A'.repeat(43)}`);
  t.equal(res.statusCode, 503);
  t.match(res.json().detail, /panel sessions cannot be checked right now/);
  t.ok(Date.now() - started < 1000, 'at once');
  const signedIn = await signIn(app, { method: 'basic', username: ADMIN_USER, password: ADMIN_PASSWORD });
  t.equal(signedIn.statusCode, 503);
  t.equal((await app.inject({ url: '/api/v1/session', headers: BASIC_ADMIN })).statusCode, 200, 'headers still work');
});

t.test('the audit line of a cookie request names the method and never holds the cookie', async (t) => {
  const { app, audit } = await build(t, kube);
  const cookie = await basicSession(app);
  const id = cookie.slice('gsp_panel='.length);
  await app.inject({ url: '/api/v1/session', headers: { cookie: `other=1; ${cookie}`, 'user-agent': `agent ${id}` } });
  const lines = audit.lines();
  const signInLine = lines.find((l) => l.path === '/panel/auth/sign-in');
  t.match(signInLine, { user: ADMIN_USER, authMethod: 'basic', status: 204 }, 'the sign-in is audited with who');
  const line = lines.find((l) => l.path === '/api/v1/session');
  t.match(line, { user: ADMIN_USER, authMethod: 'basic', status: 200, session: true });
  t.notOk(signInLine?.session, 'the sign-in itself came with no session');
  t.notMatch(JSON.stringify(lines), id, 'the cookie value is in no audit line');
  t.match(line?.userAgent, /\[REDACTED\]/);
});
