/**
 * What anonymous OIDC sign-in starts can leave behind in Redis: a budget per client address
 * (PANEL_SIGN_IN_LIMIT per 10 minutes), pending sign-ins that expire by themselves, and a
 * returnTo of bounded size.
 */
import { Redis } from 'ioredis';
import t from 'tap';
import { startOidcProvider } from '@gsp/test-kit/oidc';
import { build, redisPrefix, startKube, TEST_REDIS_URL, until } from '../helper.js';

const PUBLIC_URL = 'http://panel.example/panel/';
const kube = await startKube(t);

// The test provider, the panel its only client: sign-in starts need its discovery document.
const { issuer } = await startOidcProvider(t, {
  clients: [{ id: 'gsp-panel', secret: 'panel-secret-for-tests', redirectUri: `${PUBLIC_URL}auth/callback` }],
});

async function panelWithOidc(t: Parameters<typeof build>[0], prefix: string, env: Record<string, string> = {}) {
  const { app } = await build(t, kube, {
    AUTH_MODE: 'apikey,basic,oidc',
    AUTH_OIDC_ISSUER_URL: issuer,
    AUTH_OIDC_CLIENT_ID: 'control-plane',
    PANEL_OIDC_CLIENT_ID: 'gsp-panel',
    PANEL_OIDC_CLIENT_SECRET: 'panel-secret-for-tests',
    PANEL_PUBLIC_URL: PUBLIC_URL,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    ...env,
  });
  await until('Redis to be connected', () => app.redis?.client.status === 'ready');
  return app;
}

t.test('300 anonymous sign-in starts from one address keep a bounded number of pending sign-ins', async (t) => {
  const prefix = redisPrefix();
  const app = await panelWithOidc(t, prefix);
  const redis = new Redis(TEST_REDIS_URL);
  t.teardown(() => redis.quit());
  const start = (remoteAddress: string) =>
    app.inject({ url: `/panel/auth/login?returnTo=/panel/${'a'.repeat(600)}`, remoteAddress });

  const statuses = new Map<number, number>();
  let refusal: Awaited<ReturnType<typeof start>> | undefined;
  for (let i = 0; i < 300; i++) {
    const res = await start('10.20.0.1');
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    if (res.statusCode === 429) refusal ??= res;
  }
  t.same(Object.fromEntries(statuses), { 303: 30, 429: 270 }, 'the first 30 start, the rest are refused');
  t.match(refusal?.headers['content-type'], /application\/problem\+json/);
  t.match(refusal?.json().detail, /too many sign-ins started from this address: at most 30 per 10 minutes/);
  const retryAfter = Number(refusal?.headers['retry-after']);
  t.ok(retryAfter > 0 && retryAfter <= 600, `Retry-After says when (${retryAfter} s)`);

  const pending = await redis.keys(`${prefix}panel:login:*`);
  t.equal(pending.length, 30, 'Redis holds one pending sign-in per start let through');
  const ttls = await Promise.all(pending.map((key) => redis.pttl(key)));
  t.ok(
    ttls.every((ttl) => ttl > 0 && ttl <= 600_000),
    'each expires by itself within 10 minutes',
  );
  t.equal((await start('10.20.0.2')).statusCode, 303, 'another address still signs in');
});

t.test('PANEL_SIGN_IN_LIMIT sets the budget', async (t) => {
  const app = await panelWithOidc(t, redisPrefix(), { PANEL_SIGN_IN_LIMIT: '2' });
  const codes = [];
  for (let i = 0; i < 3; i++)
    codes.push((await app.inject({ url: '/panel/auth/login', remoteAddress: '10.20.0.3' })).statusCode);
  t.same(codes, [303, 303, 429]);
});

t.test('a returnTo longer than 2048 characters is a 400 problem, and keeps nothing', async (t) => {
  const prefix = redisPrefix();
  const app = await panelWithOidc(t, prefix);
  const res = await app.inject({ url: `/panel/auth/login?returnTo=/panel/${'a'.repeat(2100)}` });
  t.equal(res.statusCode, 400);
  t.match(res.headers['content-type'], /application\/problem\+json/);
  const redis = new Redis(TEST_REDIS_URL);
  t.teardown(() => redis.quit());
  t.same(await redis.keys(`${prefix}panel:login:*`), []);
});
