import t from 'tap';
import type { Test } from 'tap';
import { ADMIN_USER, BASIC_ADMIN, build, redisPrefix, startKube, startRelay, TEST_REDIS_URL } from './helper.js';
import type { Relay } from './helper.js';

const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

/** A relay to the test Redis (see `startRelay`: `cut` as a restart does, `stall` as a dead host does). */
async function relayToRedis(t: Test): Promise<Relay & { url: string }> {
  const target = new URL(TEST_REDIS_URL);
  const relay = await startRelay(t, { host: target.hostname, port: Number(target.port || 6379) });
  return Object.assign(relay, { url: `redis://${relay.host}:${relay.port}` });
}

t.test('failed sign-ins are shared through Redis, and counted per replica while it is gone, never a 500', async (t) => {
  const kube = await startKube(t);
  const relay = await relayToRedis(t);
  const env = { REDIS_URL: relay.url, REDIS_KEY_PREFIX: redisPrefix(), AUTH_FAILURE_LIMIT: '3' };
  const [a, b] = [(await build(t, kube, env)).app, (await build(t, kube, env)).app];

  const first = { remoteAddress: '10.0.0.1' };
  for (let i = 0; i < 3; i++) {
    const guess = await a.inject({ url: '/api/v1/session', headers: basic(ADMIN_USER, `a-guess-${i}`), ...first });
    t.equal(guess.statusCode, 401);
  }
  const refused = await b.inject({ url: '/api/v1/session', headers: basic(ADMIN_USER, 'b-guess'), ...first });
  t.equal(refused.statusCode, 429, 'the other replica refuses the address once the shared count is reached');

  relay.cut();
  const second = { remoteAddress: '10.0.0.2' };
  const started = Date.now();
  const ok = await b.inject({ url: '/api/v1/session', headers: BASIC_ADMIN, ...second });
  t.equal(ok.statusCode, 200, 'the right password still signs in with Redis gone');
  t.ok(Date.now() - started < 2000, 'without waiting for Redis');
  for (let i = 0; i < 3; i++)
    t.equal(
      (await b.inject({ url: '/api/v1/session', headers: basic(ADMIN_USER, `guess-${i}`), ...second })).statusCode,
      401,
    );
  const limited = await b.inject({ url: '/api/v1/session', headers: basic(ADMIN_USER, 'guess-3'), ...second });
  t.equal(limited.statusCode, 429, 'failures are still limited, by this replica alone');
});

t.test('a Redis that was never reachable does not stop sign-ins', async (t) => {
  const kube = await startKube(t);
  const { app } = await build(t, kube, { REDIS_URL: 'redis://127.0.0.1:1', REDIS_KEY_PREFIX: redisPrefix() });
  const res = await app.inject({ url: '/api/v1/session', headers: BASIC_ADMIN });
  t.equal(res.statusCode, 200, 'signs in without Redis');
});

t.test('a Redis that goes silent without closing does not hang requests either', async (t) => {
  const kube = await startKube(t);
  const relay = await relayToRedis(t);
  const { app } = await build(t, kube, {
    REDIS_URL: relay.url,
    REDIS_KEY_PREFIX: redisPrefix(),
    AUTH_FAILURE_LIMIT: '3',
  });
  t.equal(
    (await app.inject({ url: '/api/v1/session', headers: BASIC_ADMIN })).statusCode,
    200,
    'signed in with Redis answering',
  );

  relay.stall();
  const client = { remoteAddress: '10.0.0.3' };
  const started = Date.now();
  t.equal(
    (await app.inject({ url: '/api/v1/session', headers: BASIC_ADMIN, ...client })).statusCode,
    200,
    'signed in with Redis silent',
  );
  t.ok(Date.now() - started < 5000, 'it did not wait for TCP to give up on the silent link (minutes)');
  for (let i = 0; i < 3; i++)
    t.equal(
      (await app.inject({ url: '/api/v1/session', headers: basic(ADMIN_USER, `guess-${i}`), ...client })).statusCode,
      401,
    );
  const limited = await app.inject({ url: '/api/v1/session', headers: basic(ADMIN_USER, 'guess-3'), ...client });
  t.equal(limited.statusCode, 429, 'failures are limited by this replica meanwhile');
});
