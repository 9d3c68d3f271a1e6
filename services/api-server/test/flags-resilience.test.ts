import t from 'tap';
import type { Test as Tap } from 'tap';
import pg from 'pg';
import { Redis } from 'ioredis';
import { RedisEventBus } from '@gsp/events';
import { createFlagsClient } from '@gsp/flags-client';
import type { Evaluation } from '@gsp/flags-client';
import { startRelay } from '@gsp/service-kit/testing/relay';
import { bearer, build, PLATFORM_ADMIN, redisPrefix, TEST_REDIS_URL, until } from './helper.js';

const url = '/api/v1/platform/feature-flags/cli_access.enabled';

t.test(
  'Redis connections killed mid-toggle: no error reaches the caller, values stay right, invalidation resumes',
  async (t) => {
    const prefix = redisPrefix();
    const ttl = 1500;
    const { app, databaseUrl } = await build(t, { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix });
    const admin = await bearer(PLATFORM_ADMIN);
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    const bus = new RedisEventBus({ url: TEST_REDIS_URL, prefix, connectionName: `${prefix}reader` });
    const client = createFlagsClient({ pool, bus, ttlMs: ttl, env: {} });
    t.teardown(async () => {
      await client.close();
      await bus.close();
      await pool.end();
    });
    await bus.ready();
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
    // Refuses connections until restored.
    const redis = await startRelay(t, TEST_REDIS_URL);
    redis.cut();
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
    redis.restore();
    const event = await until(
      'the outbox event to reach Redis subscribers',
      () => events.find((e) => e.includes('"value":false')),
      15_000,
    );
    t.match(JSON.parse(event), { value: false }, 'the write made while Redis was down was published, not lost');
  },
);
