import t from 'tap';
import Fastify from 'fastify';
import fp from 'fastify-plugin';
import { hasExpired } from '../../src/apikeys/store.js';
import type { ApiKeyRecord, ApiKeyStore } from '../../src/apikeys/store.js';
import type { Principal } from '../../src/auth/principal.js';
import redis from '../../src/plugins/redis.js';
import tickets from '../../src/plugins/tickets.js';

type Tap = { teardown(fn: () => unknown): void };

const WEB = { namespace: 'games', name: 'web' };
const ADA: Principal = { userId: 'ada', username: 'ada', role: 'operator', method: 'basic' };
const record = (sha256: string, expiresAt?: string): ApiKeyRecord => ({
  name: 'ci',
  role: 'operator',
  userId: 'ada',
  username: 'ada',
  createdAt: '2026-01-01T00:00:00Z',
  sha256,
  ...(expiresAt ? { expiresAt } : {}),
});

/** The tickets plugin on a bare Fastify, without Redis, over API keys the test sets. */
async function appWith(t: Tap, keys: ApiKeyRecord[], ttlMs = 60_000) {
  const app = Fastify();
  t.teardown(() => app.close());
  await app.register(redis, { url: undefined, keyPrefix: 'gsp:' });
  // The store's own rule: a key counts while it is there and its expiresAt has not passed.
  const byHash = (sha256: string) => keys.find((k) => k.sha256 === sha256 && !hasExpired(k));
  const store = { byHash } as unknown as ApiKeyStore;
  await app.register(
    fp(
      async (a) => {
        a.decorate('apikeys', store);
      },
      { name: 'apikeys' },
    ),
  );
  await app.register(tickets, { ttlMs });
  await app.ready();
  return app;
}

t.test('a ticket opens the console it was issued for, once, as the one who asked for it', async (t) => {
  const app = await appWith(t, []);
  const { ticket, expiresAt } = await app.terminalTickets.issue(ADA, WEB);
  t.ok(Date.parse(expiresAt) > Date.now());
  t.same(await app.terminalTickets.redeem(ticket, WEB), ADA);
  t.equal(await app.terminalTickets.redeem(ticket, WEB), undefined, 'used already');
});

t.test('a ticket shown for another game server is refused, and spent', async (t) => {
  const app = await appWith(t, []);
  const { ticket } = await app.terminalTickets.issue(ADA, WEB);
  t.equal(await app.terminalTickets.redeem(ticket, { namespace: 'games', name: 'other' }), undefined);
  t.equal(await app.terminalTickets.redeem(ticket, WEB), undefined);
});

t.test('a ticket asked for with an API key is worth nothing once the key no longer authenticates', async (t) => {
  const keys = [record('aaa')];
  const app = await appWith(t, keys);
  const withKey: Principal = { ...ADA, method: 'apikey', apiKey: { name: 'ci', sha256: 'aaa' } };
  const current = await app.terminalTickets.issue(withKey, WEB);
  t.same(await app.terminalTickets.redeem(current.ticket, WEB), withKey, 'the key is current');

  const revoked = await app.terminalTickets.issue(withKey, WEB);
  keys.length = 0;
  t.equal(await app.terminalTickets.redeem(revoked.ticket, WEB), undefined, 'the key was revoked');

  keys.push(record('aaa', new Date(Date.now() - 1000).toISOString()));
  const expired = await app.terminalTickets.issue(withKey, WEB);
  t.equal(await app.terminalTickets.redeem(expired.ticket, WEB), undefined, 'the key has expired');
});

t.test('a lifetime that is not a positive number of milliseconds fails the boot', async (t) => {
  for (const ttlMs of [0, -1, Number.NaN]) {
    await t.rejects(appWith(t, [], ttlMs), /console ticket lifetime must be a positive number/);
  }
});
