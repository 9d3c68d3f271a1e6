import t from 'tap';
import pg from 'pg';
import { Registry } from 'prom-client';
import { LocalEventBus, RedisEventBus } from '@gsp/events';
import { createFlagsClient } from '@gsp/flags-client';
import { waitUntil } from '@gsp/service-kit';
import { startRelay } from '@gsp/service-kit/testing/relay';
import { announce, flagStore, PLATFORM, redisPrefix, TEST_REDIS_URL } from './helper.js';

t.test('a client that has seen a value keeps answering it, stale, while Postgres is unreachable', async (t) => {
  const store = await flagStore(t);
  await store.set(PLATFORM, false);
  const link = await startRelay(t, store.url);
  const pool = new pg.Pool({ connectionString: link.url, max: 2, connectionTimeoutMillis: 500 });
  pool.on('error', () => {});
  const warnings: string[] = [];
  const infos: string[] = [];
  const registry = new Registry();
  const client = createFlagsClient({
    pool,
    bus: new LocalEventBus(),
    ttlMs: 50,
    retryAfterMs: 100,
    storeTimeoutMs: 500,
    env: {},
    logger: { warn: (_o, msg) => warnings.push(msg), info: (_o, msg) => infos.push(msg) },
    registry,
  });
  t.teardown(async () => {
    await client.close();
    await pool.end();
  });
  t.match(await client.cliAccess({}), { value: false, source: 'platform', envPinned: false, stale: false });

  link.cut();
  const stale = await waitUntil(
    async () => {
      const r = await client.cliAccess({});
      return r.stale ? r : undefined;
    },
    { timeoutMs: 5000, intervalMs: 5, what: 'a stale answer' },
  );
  t.match(
    stale,
    { value: false, source: 'platform', envPinned: false, stale: true },
    'the last value seen, marked stale',
  );
  for (let i = 0; i < 50; i++) t.equal((await client.cliAccess({})).value, false);
  t.equal(warnings.length, 1, 'the outage is logged once');
  t.match(
    await registry.getSingleMetricAsString('gsp_flags_stale_evaluations_total'),
    /gsp_flags_stale_evaluations_total \d+/,
  );
  t.match(await registry.getSingleMetricAsString('gsp_flags_store_up'), /gsp_flags_store_up 0/);

  link.restore();
  await waitUntil(async () => !(await client.cliAccess({})).stale, { timeoutMs: 5000, what: 'fresh answers again' });
  t.same(infos, ['flag store reachable again']);
});

t.test(
  'a client that never saw a value answers the built-in default, stale, while Postgres is unreachable',
  async (t) => {
    const store = await flagStore(t);
    const link = await startRelay(t, store.url);
    link.cut();
    const pool = new pg.Pool({ connectionString: link.url, max: 2, connectionTimeoutMillis: 500 });
    pool.on('error', () => {});
    const client = createFlagsClient({ pool, bus: new LocalEventBus(), env: {}, storeTimeoutMs: 500 });
    t.teardown(async () => {
      await client.close();
      await pool.end();
    });
    t.same(await client.cliAccess({ clusterId: 'c1' }), {
      value: true,
      source: 'default',
      envPinned: false,
      stale: true,
    });
  },
);

t.test(
  'a client that cached values before its Redis was reachable drops them when it first connects, not a TTL later',
  async (t) => {
    const prefix = redisPrefix();
    const store = await flagStore(t);
    const writer = new RedisEventBus({ url: TEST_REDIS_URL, prefix });
    t.teardown(() => writer.close());
    // Refuses the reader's connections until restored.
    const redis = await startRelay(t, TEST_REDIS_URL);
    redis.cut();
    const pool = new pg.Pool({ connectionString: store.url, max: 2 });
    const bus = new RedisEventBus({ url: redis.url, prefix });
    const reader = createFlagsClient({ pool, bus, ttlMs: 120_000, env: {} });
    t.teardown(async () => {
      await reader.close();
      await bus.close();
      await pool.end();
    });
    t.equal((await reader.cliAccess({})).value, true, 'cached while the reader has no Redis');

    await store.set(PLATFORM, false);
    await announce(writer, PLATFORM, false);
    t.equal((await reader.cliAccess({})).value, true, 'the reader missed the change published meanwhile');

    redis.restore();
    await waitUntil(async () => (await reader.cliAccess({})).value === false, {
      timeoutMs: 10_000,
      intervalMs: 20,
      what: 'the reader to drop its cache on connecting',
    });
    t.pass('the reader sees the change within seconds of reaching Redis, with a TTL of two minutes');
  },
);
