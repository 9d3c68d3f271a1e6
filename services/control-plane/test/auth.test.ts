import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { ADMIN_USER, BASIC_ADMIN, build, createKey, redisPrefix, startKube, TEST_REDIS_URL, until } from './helper.js';

const kube = await startKube(t);
const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

t.test('a request without credentials is a 401 with one challenge per enabled scheme', async (t) => {
  const { app } = await build(t, kube);
  const res = await app.inject({ url: '/api/v1/gameservers' });
  t.equal(res.statusCode, 401);
  t.match(res.headers['content-type'], /application\/problem\+json/);
  const challenges = ([] as string[]).concat(res.headers['www-authenticate'] as string | string[]);
  t.same(challenges.map((c) => c.split(' ')[0]).sort(), ['ApiKey', 'Basic']);
});

t.test('the Basic user with the right password is an admin', async (t) => {
  const { app } = await build(t, kube);
  const res = await app.inject({ url: '/api/v1/gameservers', headers: BASIC_ADMIN });
  t.equal(res.statusCode, 200);
  t.same(res.json(), []);
});

t.test('a wrong Basic password or user is a 401', async (t) => {
  const { app } = await build(t, kube);
  t.equal((await app.inject({ url: '/api/v1/gameservers', headers: basic(ADMIN_USER, 'wrong') })).statusCode, 401);
  t.equal(
    (await app.inject({ url: '/api/v1/gameservers', headers: basic('someone', 'correct horse battery staple') }))
      .statusCode,
    401,
  );
});

t.test('a repeated Basic request is served from the verification cache, a failure never is', async (t) => {
  const { app } = await build(t, kube);
  await app.inject({ url: '/api/v1/gameservers', headers: BASIC_ADMIN });
  const started = performance.now();
  for (let i = 0; i < 20; i++)
    t.equal((await app.inject({ url: '/api/v1/gameservers', headers: BASIC_ADMIN })).statusCode, 200);
  t.ok(performance.now() - started < 20 * 40, 'twenty cached checks take less than one bcrypt compare each');
  t.equal((await app.inject({ url: '/api/v1/gameservers', headers: basic(ADMIN_USER, 'wrong') })).statusCode, 401);
  t.equal((await app.inject({ url: '/api/v1/gameservers', headers: basic(ADMIN_USER, 'wrong') })).statusCode, 401);
});

t.test('an invalid API key is a 401 even with valid Basic credentials alongside', async (t) => {
  const { app } = await build(t, kube);
  const res = await app.inject({ url: '/api/v1/gameservers', headers: { ...BASIC_ADMIN, 'x-api-key': 'gsp_notakey' } });
  t.equal(res.statusCode, 401);
  t.match(res.json(), { detail: /API key/ });
});

t.test('a bearer token is not accepted when OIDC is off, and Basic still decides', async (t) => {
  const { app } = await build(t, kube);
  t.equal((await app.inject({ url: '/api/v1/gameservers', headers: { authorization: 'Bearer abc' } })).statusCode, 401);
});

t.test('health and readiness need no credentials', async (t) => {
  const { app, audit } = await build(t, kube);
  t.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
  t.equal((await app.inject({ url: '/readyz' })).statusCode, 200);
  t.equal(audit.lines().length, 0, 'and are not audited');
});

t.test('a valid API key authenticates as the key name with its role', async (t) => {
  const { app } = await build(t, kube);
  const key = await createKey(app, 'auth-viewer', 'viewer');
  t.match(key, /^gsp_[0-9A-Za-z]{38,}$/);
  t.equal((await app.inject({ url: '/api/v1/gameservers', headers: { 'x-api-key': key } })).statusCode, 200);
  const denied = await app.inject({ url: '/api/v1/apikeys', headers: { 'x-api-key': key } });
  t.equal(denied.statusCode, 403);
  t.match(denied.json(), { detail: 'role viewer may not list apikeys' });
});

t.test('repeated failed attempts from one address are refused with 429 and Retry-After', async (t) => {
  const { app } = await build(t, kube, { AUTH_FAILURE_LIMIT: '3' });
  for (let i = 0; i < 3; i++)
    t.equal(
      (await app.inject({ url: '/api/v1/gameservers', headers: basic(ADMIN_USER, `guess-${i}`) })).statusCode,
      401,
    );
  const blocked = await app.inject({ url: '/api/v1/gameservers', headers: basic(ADMIN_USER, 'guess-4') });
  t.equal(blocked.statusCode, 429);
  t.ok(Number(blocked.headers['retry-after']) > 0);
  t.equal(
    (await app.inject({ url: '/api/v1/gameservers', headers: BASIC_ADMIN })).statusCode,
    429,
    'even the right password waits out the window',
  );
});

t.test('AUTH_MODE=none makes every caller an anonymous admin', async (t) => {
  const { app } = await build(t, kube, { AUTH_MODE: 'none', AUTH_BASIC_USER: undefined });
  t.equal((await app.inject({ url: '/api/v1/apikeys' })).statusCode, 200);
});

t.test('each credential has its own request budget, answered with 429 and Retry-After when spent', async (t) => {
  const { app } = await build(t, kube, { RATE_LIMIT_MAX: '2' });
  const key = await createKey(app, 'budget', 'viewer');
  for (let i = 0; i < 2; i++)
    t.equal((await app.inject({ url: '/api/v1/session', headers: { 'x-api-key': key } })).statusCode, 200);
  const limited = await app.inject({ url: '/api/v1/session', headers: { 'x-api-key': key } });
  t.equal(limited.statusCode, 429);
  t.ok(Number(limited.headers['retry-after']) > 0);
  t.match(limited.headers['content-type'], /application\/problem\+json/);
  t.equal(
    (await app.inject({ url: '/api/v1/session', headers: BASIC_ADMIN })).statusCode,
    200,
    'another credential is not affected',
  );
});

for (const [counters, redis] of [
  ['this replica', {}],
  ['Redis', { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() }],
] as const) {
  t.test(`a key revoked and created again under its name starts with a fresh budget (${counters})`, async (t) => {
    // Three requests each: the admin creates, revokes and creates again; the first key spends its budget.
    const { app } = await build(t, kube, { RATE_LIMIT_MAX: '3', ...redis });
    const name = `rotated-${counters === 'Redis' ? 'redis' : 'local'}`;
    const session = async (key: string) =>
      (await app.inject({ url: '/api/v1/session', headers: { 'x-api-key': key } })).statusCode;
    const first = await createKey(app, name, 'viewer');
    for (let i = 0; i < 3; i++) t.equal(await session(first), 200);
    t.equal(await session(first), 429, 'the first key spent its budget');
    const revoked = await app.inject({ method: 'DELETE', url: `/api/v1/apikeys/${name}`, headers: BASIC_ADMIN });
    t.equal(revoked.statusCode, 204);
    t.equal(await session(await createKey(app, name, 'viewer')), 200, 'the new key under the same name');
  });
}

t.test('the session route tells callers who they are', async (t) => {
  const { app } = await build(t, kube);
  t.same((await app.inject({ url: '/api/v1/session', headers: BASIC_ADMIN })).json(), {
    userId: 'root',
    username: 'root',
    role: 'admin',
    authMethod: 'basic',
  });
});

t.test('a request whose client disconnects early is still audited', async (t) => {
  const { app, audit } = await build(t, kube);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const socket = connect(port, '127.0.0.1');
  t.teardown(() => socket.destroy());
  await new Promise((resolve) => socket.once('connect', resolve));
  const arrived = new Promise((resolve) => app.server.once('request', resolve));
  // Headers and half a body, then hang up while the server waits for the rest.
  socket.write(
    `POST /api/v1/apikeys HTTP/1.1\r\nHost: x\r\nAuthorization: ${BASIC_ADMIN.authorization}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":',
  );
  await arrived;
  await new Promise((r) => setImmediate(r));
  socket.destroy();
  const line = await until('the audit line', () => audit.lines().find((l) => l.path === '/api/v1/apikeys'));
  t.match(line, { method: 'POST', result: 'failure', status: 499 });
});
