import net from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { Test as Tap } from 'tap';
import pg from 'pg';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { createFlagsClient } from '@gsp/flags-client';
import type { Evaluation } from '@gsp/flags-client';
import { bearer, build, cuttableDatabaseUrl, PLATFORM_ADMIN, redisPrefix, TEST_REDIS_URL, until } from './helper.js';

const url = '/api/v1/platform/feature-flags/cli_access.enabled';

t.test(
  'Redis connections killed mid-toggle: no error reaches the caller, values stay right, invalidation resumes',
  async (t) => {
    const prefix = redisPrefix();
    const ttl = 1500;
    const { app, databaseUrl } = await build(t, { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix });
    const admin = await bearer(PLATFORM_ADMIN);
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    const client = createFlagsClient({
      pool,
      redisUrl: TEST_REDIS_URL,
      redisPrefix: prefix,
      redisConnectionName: `${prefix}reader`,
      ttlMs: ttl,
      env: {},
    });
    t.teardown(async () => {
      await client.close();
      await pool.end();
    });
    await client.ready();
    const resyncs: string[] = [];
    client.onChange('cli_access.enabled', (change) => resyncs.push(change.scope.type));

    const redis = new Redis(TEST_REDIS_URL);
    t.teardown(() => redis.disconnect());
    const killOurs = async () => {
      const list = (await redis.client('LIST')) as string;
      const ours = list.split('\n').filter((line) => line.includes(`name=${prefix}`));
      for (const line of ours) await redis.client('KILL', 'ID', /id=(\d+)/.exec(line)![1]!);
      return ours.length;
    };

    // Evaluate continuously while toggling; any rejection would be a bug.
    const errors: unknown[] = [];
    let running = true;
    const reads = (async () => {
      while (running) {
        await client.cliAccess({}).catch((err) => errors.push(err));
        await new Promise((r) => setImmediate(r));
      }
    })();

    let last = true;
    for (let i = 0; i < 20; i++) {
      last = i % 2 === 0 ? false : true;
      t.equal((await app.inject({ method: 'PUT', url, headers: admin, payload: { value: last } })).statusCode, 200);
      if (i === 9) t.ok((await killOurs()) >= 2, 'killed the subscriber and the publisher connections');
    }
    const final: Evaluation = await until(
      'the reader to converge on the last write within the TTL',
      async () => {
        const r = await client.cliAccess({});
        return r.value === last ? r : undefined;
      },
      ttl + 1000,
    );
    t.equal(final.value, last);
    running = false;
    await reads;
    t.same(errors, [], 'no evaluation ever failed');

    await until('the reader to resubscribe', () => (resyncs.includes('all') ? true : undefined), 5000);
    // Invalidation works again: a write is seen far sooner than the TTL would allow.
    t.equal((await app.inject({ method: 'PUT', url, headers: admin, payload: { value: !last } })).statusCode, 200);
    const since = Date.now();
    await until(
      'the write after reconnect to be seen',
      async () => ((await client.cliAccess({})).value === !last ? true : undefined),
      ttl - 200,
    );
    t.ok(Date.now() - since < ttl - 200, `seen ${Date.now() - since} ms after the write, through Redis`);
  },
);

t.test('a client that has seen a value keeps answering it, stale, while Postgres is unreachable', async (t) => {
  const { app, databaseUrl } = await build(t);
  t.equal(
    (await app.inject({ method: 'PUT', url, headers: await bearer(PLATFORM_ADMIN), payload: { value: false } }))
      .statusCode,
    200,
  );
  const link = await cuttableDatabaseUrl(t, databaseUrl);
  const pool = new pg.Pool({ connectionString: link.url, max: 2, connectionTimeoutMillis: 500 });
  pool.on('error', () => {});
  const warnings: string[] = [];
  const infos: string[] = [];
  const registry = new Registry();
  const client = createFlagsClient({
    pool,
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
  t.same(await client.cliAccess({}), { value: false, source: 'platform', envPinned: false, stale: false });

  link.cut();
  const stale = await until('a stale answer', async () => {
    const r = await client.cliAccess({});
    return r.stale ? r : undefined;
  });
  t.same(
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
  await until('fresh answers again', async () => ((await client.cliAccess({})).stale ? undefined : true), 5000);
  t.same(infos, ['flag store reachable again']);
});

t.test(
  'a client that never saw a value answers the built-in default, stale, while Postgres is unreachable',
  async (t) => {
    const { databaseUrl } = await build(t);
    const link = await cuttableDatabaseUrl(t, databaseUrl);
    link.cut();
    const pool = new pg.Pool({ connectionString: link.url, max: 2, connectionTimeoutMillis: 500 });
    pool.on('error', () => {});
    const client = createFlagsClient({ pool, env: {}, storeTimeoutMs: 500 });
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

/** A port that refuses Redis until `up()`: connections are closed at once, then relayed to the real Redis. */
async function lateRedis(t: Tap) {
  const target = new URL(TEST_REDIS_URL);
  const state = { up: false };
  const sockets = new Set<net.Socket>();
  const relay = net.createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    if (!state.up) return void client.destroy();
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    sockets.add(upstream);
    upstream.on('error', () => undefined);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    relay.close();
    for (const s of sockets) s.destroy();
  });
  return {
    url: `redis://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    up() {
      state.up = true;
    },
  };
}

/** Collects what is published on one prefix's flag channel. */
async function channelListener(t: Tap, prefix: string): Promise<string[]> {
  const listener = new Redis(TEST_REDIS_URL);
  t.teardown(() => listener.disconnect());
  const events: string[] = [];
  listener.on('message', (_channel: string, message: string) => events.push(message));
  await listener.subscribe(`${prefix}featureflags.updated`);
  return events;
}

t.test(
  'an API server whose Redis is down at start still starts and takes writes; the event is published once Redis is back',
  async (t) => {
    const redis = await lateRedis(t);
    const prefix = redisPrefix();
    const started = Date.now();
    const { app } = await build(t, { REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix });
    t.ok(Date.now() - started < 15_000, 'it started instead of waiting for Redis');
    const admin = await bearer(PLATFORM_ADMIN);
    t.equal(
      (await app.inject({ method: 'PUT', url, headers: admin, payload: { value: false } })).statusCode,
      200,
      'a write is taken',
    );
    t.equal((await app.inject({ url: '/api/v1/platform/feature-flags', headers: admin })).statusCode, 200);

    const events = await channelListener(t, prefix);
    redis.up();
    const event = await until(
      'the outbox event to reach Redis subscribers',
      () => events.find((e) => e.includes('"value":false')),
      15_000,
    );
    t.match(JSON.parse(event), { value: false }, 'the write made while Redis was down was published, not lost');
  },
);

t.test(
  'a client that cached values before its Redis was reachable drops them when it first connects, not a TTL later',
  async (t) => {
    const prefix = redisPrefix();
    const { app, databaseUrl } = await build(t, { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix });
    const admin = await bearer(PLATFORM_ADMIN);
    const redis = await lateRedis(t);
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    const reader = createFlagsClient({ pool, redisUrl: redis.url, redisPrefix: prefix, ttlMs: 120_000, env: {} });
    t.teardown(async () => {
      await reader.close();
      await pool.end();
    });
    t.equal((await reader.cliAccess({})).value, true, 'cached while the reader has no Redis');

    const events = await channelListener(t, prefix);
    t.equal((await app.inject({ method: 'PUT', url, headers: admin, payload: { value: false } })).statusCode, 200);
    await until(
      'the change to be published while the reader cannot hear it',
      () => events.find((e) => e.includes('"value":false')),
      10_000,
    );
    t.equal((await reader.cliAccess({})).value, true, 'the reader missed it');

    redis.up();
    await until(
      'the reader to drop its cache on connecting',
      async () => ((await reader.cliAccess({})).value === false ? true : undefined),
      10_000,
      20,
    );
    t.pass('the reader sees the change within seconds of reaching Redis, with a TTL of two minutes');
  },
);
