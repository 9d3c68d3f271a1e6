import t from 'tap';
import type { Test } from 'tap';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { KEY_REVOKED } from '../../src/plugins/panel-sessions.js';
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

function cookieOf(res: LightMyRequestResponse): string {
  const value = /^gsp_panel=([^;]*)/.exec(String(res.headers['set-cookie'] ?? ''))?.[1];
  if (value === undefined) throw new Error(`no session cookie: ${res.statusCode} ${res.body}`);
  return `gsp_panel=${value}`;
}

/** Two control planes on one kube-lite and one Redis prefix, each connected to Redis. */
async function twoReplicas(t: Test): Promise<[FastifyInstance, FastifyInstance]> {
  const env = { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() };
  const a = (await build(t, kube, env)).app;
  const b = (await build(t, kube, env)).app;
  await until('both to reach Redis', () => a.redis?.client.status === 'ready' && b.redis?.client.status === 'ready');
  return [a, b];
}

/** What `app` is told of ended sessions, as it is told. */
function endsSeenBy(t: Test, app: FastifyInstance): { hash: string; reason: string }[] {
  const seen: { hash: string; reason: string }[] = [];
  t.teardown(app.panelSessions.onEnded((hash, reason) => seen.push({ hash, reason })));
  return seen;
}

const whoAmI = (app: FastifyInstance, cookie: string) => app.inject({ url: '/api/v1/session', headers: { cookie } });

t.test('signed out on one replica, the cookie is refused on the other within a second, and it is told', async (t) => {
  const [a, b] = await twoReplicas(t);
  const seenByB = endsSeenBy(t, b);
  const signedIn = await a.inject({
    method: 'POST',
    url: '/panel/auth/sign-in',
    headers: PANEL,
    payload: { method: 'basic', username: ADMIN_USER, password: ADMIN_PASSWORD },
  });
  const cookie = cookieOf(signedIn);
  t.equal((await whoAmI(b, cookie)).statusCode, 200, 'the other replica knows the session');

  t.equal(
    (await a.inject({ method: 'POST', url: '/panel/auth/logout', headers: { cookie, ...PANEL } })).statusCode,
    204,
  );
  await until('B to refuse the cookie', async () => (await whoAmI(b, cookie)).statusCode === 401, 1000);
  await until('B to be told of the end', () => seenByB.length > 0, 1000);
  t.match(seenByB[0], { hash: /^[0-9a-f]{64}$/, reason: 'signed out' });
});

t.test('an API key revoked on one replica ends its session on the other, which closes what it holds', async (t) => {
  const [a, b] = await twoReplicas(t);
  const seenByB = endsSeenBy(t, b);
  const key = await createKey(a, 'panel-replicas', 'operator');
  await until(
    'B to know the key',
    async () => (await b.inject({ url: '/api/v1/session', headers: { 'x-api-key': key } })).statusCode === 200,
  );
  const signedIn = await a.inject({
    method: 'POST',
    url: '/panel/auth/sign-in',
    headers: PANEL,
    payload: { method: 'apikey', key },
  });
  const cookie = cookieOf(signedIn);
  const onB = await whoAmI(b, cookie);
  t.equal(onB.statusCode, 200);
  t.equal(onB.json().authMethod, 'apikey');

  t.equal(
    (await a.inject({ method: 'DELETE', url: '/api/v1/apikeys/panel-replicas', headers: BASIC_ADMIN })).statusCode,
    204,
  );
  await until('B to refuse the cookie', async () => (await whoAmI(b, cookie)).statusCode === 401);
  await until('B to be told of the end', () => seenByB.some((e) => e.reason === KEY_REVOKED));
  t.pass('ended on B');
});
