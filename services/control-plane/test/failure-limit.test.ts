import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { generateKey } from '../src/apikeys/keys.js';
import { ADMIN_USER, BASIC_ADMIN, build, createKey, redisPrefix, startKube, TEST_REDIS_URL } from './helper.js';

const LIMIT = 10;
const kube = await startKube(t);

type Headers = Record<string, string>;
const basic = (password: string): Headers => ({
  authorization: `Basic ${Buffer.from(`${ADMIN_USER}:${password}`).toString('base64')}`,
});
const apiKey = (key: string): Headers => ({ 'x-api-key': key });
const from = (remoteAddress: string) => ({ remoteAddress });

/** The status of GET /api/v1/session with these credentials from this client address. */
async function session(app: FastifyInstance, headers: Headers, client: { remoteAddress: string }): Promise<number> {
  return (await app.inject({ url: '/api/v1/session', headers, ...client })).statusCode;
}

/** A 401 is a credential that was verified and failed; a 429 was refused before verification. */
function tally(statuses: number[]): { verified: number; refused: number } {
  return { verified: statuses.filter((s) => s === 401).length, refused: statuses.filter((s) => s === 429).length };
}

for (const [counters, redis] of [
  ['this replica', () => ({})],
  ['Redis', () => ({ REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() })],
] as const) {
  const env = () => ({ AUTH_FAILURE_LIMIT: String(LIMIT), ...redis() });
  const suffix = counters === 'Redis' ? 'redis' : 'local';

  t.test(`100 parallel wrong Basic passwords from one address: at most the limit verified (${counters})`, async (t) => {
    const { app } = await build(t, kube, env());
    const client = from('10.1.0.1');
    const guesses = Array.from({ length: 100 }, (_, i) => session(app, basic(`guess-${i}`), client));
    const { verified, refused } = tally(await Promise.all(guesses));
    t.ok(verified >= 1 && verified <= LIMIT, `${verified} passwords were checked by bcrypt (limit ${LIMIT})`);
    t.equal(verified + refused, 100, 'the others were refused with 429 before any bcrypt');
  });

  t.test(`200 parallel bad API keys from one address: at most the limit are verified (${counters})`, async (t) => {
    const { app } = await build(t, kube, env());
    const client = from('10.1.0.2');
    const guesses = Array.from({ length: 200 }, () => session(app, apiKey(generateKey('gsp')), client));
    const { verified, refused } = tally(await Promise.all(guesses));
    t.ok(verified >= 1 && verified <= LIMIT, `${verified} keys were looked up and refused with 401 (limit ${LIMIT})`);
    t.equal(verified + refused, 200, 'the others were refused with 429');
  });

  t.test(
    `credentials already used from an address still work there after it is locked out (${counters})`,
    async (t) => {
      const { app } = await build(t, kube, env());
      const shared = from('10.1.0.3');
      const key = apiKey(await createKey(app, `known-${suffix}`, 'viewer'));
      t.equal(await session(app, key, shared), 200);
      t.equal(await session(app, BASIC_ADMIN, shared), 200);

      // Another client behind the same address keeps retrying a key that was revoked.
      const revoked = apiKey(await createKey(app, `gone-${suffix}`, 'viewer'));
      const revoke = await app.inject({
        method: 'DELETE',
        url: `/api/v1/apikeys/gone-${suffix}`,
        headers: BASIC_ADMIN,
      });
      t.equal(revoke.statusCode, 204);
      for (let i = 0; i < LIMIT; i++) t.equal(await session(app, revoked, shared), 401);
      t.equal(await session(app, revoked, shared), 429, 'the address is locked out');

      t.equal(await session(app, key, shared), 200, 'a current API key still works');
      t.equal(await session(app, BASIC_ADMIN, shared), 200, 'so does a password proven from this address');
      t.equal(await session(app, basic('a guess'), shared), 429, 'guesses do not');

      // A password proven from one address is no way past the lockout of another: otherwise any
      // address could try passwords against the cache while the user is active.
      const other = from('10.1.0.4');
      for (let i = 0; i < LIMIT; i++) await session(app, basic(`guess-${i}`), other);
      t.equal(await session(app, BASIC_ADMIN, other), 429, 'the right password from elsewhere waits');
    },
  );

  t.test(`a burst of parallel requests with the right password shares one verification (${counters})`, async (t) => {
    const { app } = await build(t, kube, env());
    const burst = Array.from({ length: 3 * LIMIT }, () => session(app, BASIC_ADMIN, from('10.1.0.5')));
    t.same([...new Set(await Promise.all(burst))], [200], 'none is refused by its own limit');
  });
}
