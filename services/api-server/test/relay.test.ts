import t from 'tap';
import pg from 'pg';
import { fork } from 'node:child_process';
import { nodeEntry } from '@gsp/service-kit/testing/entry';
import { RedisEventBus } from '@gsp/events';
import { FLAG_UPDATED_EVENT, isFlagEvent } from '@gsp/platform-contract';
import type { FlagEvent } from '@gsp/platform-contract';
import { OutboxRelay } from '../src/outbox/relay.js';
import {
  bearer,
  build,
  PLATFORM_ADMIN,
  redisPrefix,
  registerCluster,
  seedTenant,
  TEST_REDIS_URL,
  until,
} from './helper.js';

const quiet = { warn() {}, debug() {} };
const url = '/api/v1/platform/feature-flags/cli_access.enabled';

async function listen(t: { teardown(fn: () => unknown): void }, prefix: string): Promise<FlagEvent[]> {
  const bus = new RedisEventBus({ url: TEST_REDIS_URL, prefix });
  const seen: FlagEvent[] = [];
  bus.subscribe(FLAG_UPDATED_EVENT, { event: (e) => isFlagEvent(e) && seen.push(e) });
  await bus.ready();
  t.teardown(() => bus.close());
  return seen;
}

t.test('a relay killed between publish and mark redelivers the event after restart', async (t) => {
  const prefix = redisPrefix();
  const { app, databaseUrl } = await build(t, { OUTBOX_RELAY_ENABLED: 'false' });
  const seen = await listen(t, prefix);
  t.equal(
    (await app.inject({ method: 'PUT', url, headers: await bearer(PLATFORM_ADMIN), payload: { value: false } }))
      .statusCode,
    200,
  );
  const [{ id }] = (await app.pg.query<{ id: string }>('SELECT id FROM outbox_events')).rows as [{ id: string }];

  const [file, ...execArgv] = nodeEntry(new URL('./fixtures/relay-process.ts', import.meta.url)).reverse();
  const doomed = fork(file as string, [], {
    env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix },
    execArgv: execArgv.reverse(),
  });
  const exited = new Promise((resolve) => doomed.once('exit', resolve));
  await new Promise<void>((resolve) => doomed.once('message', () => resolve()));
  doomed.kill('SIGKILL');
  await exited;

  await until('the first delivery to arrive', () => (seen.length === 1 ? true : undefined));
  t.equal(seen[0]!.id, id, 'the killed relay did publish');
  const afterCrash = await app.pg.query('SELECT delivered_at FROM outbox_events WHERE id = $1', [id]);
  t.equal(afterCrash.rows[0].delivered_at, null, 'but never marked the event delivered');

  const bus = new RedisEventBus({ url: TEST_REDIS_URL, prefix });
  t.teardown(() => bus.close());
  const relay = new OutboxRelay({ pool: app.pg, bus, log: quiet, pollIntervalMs: 50 });
  t.teardown(() => relay.stop());
  await relay.start();
  await until('the redelivery', () => (seen.length === 2 ? true : undefined));
  t.same(
    seen.map((e) => e.id),
    [id, id],
    'the restarted relay delivered the same event again',
  );
  t.match(seen[1], { flag: 'cli_access.enabled', actor: PLATFORM_ADMIN, scope: { type: 'platform' }, value: false });
  // The relay marks the row after it publishes: the subscriber may see the event first.
  const deliveredAt = await until('the redelivered event to be marked delivered', async () => {
    const { rows } = await app.pg.query('SELECT delivered_at FROM outbox_events WHERE id = $1', [id]);
    return (rows[0]?.delivered_at as Date | null) ?? undefined;
  });
  t.ok(deliveredAt, 'and marked it delivered');
});

t.test('two relays running together deliver every event, each marked once, in order per scope', async (t) => {
  const prefix = redisPrefix();
  const { app } = await build(t, { OUTBOX_RELAY_ENABLED: 'false' });
  const seen = await listen(t, prefix);
  const admin = await bearer(PLATFORM_ADMIN);
  await seedTenant(app, 'acme', { ops: 'operator' });
  const cluster = await registerCluster(app, 'acme', 'one');
  // Seeding the tenant announced its members; only the flag writes below are counted.
  await app.pg.query('DELETE FROM outbox_events');

  const relays = [0, 1].map(() => {
    const pool = new pg.Pool({
      connectionString: (app.pg as unknown as { options: { connectionString: string } }).options.connectionString,
    });
    const bus = new RedisEventBus({ url: TEST_REDIS_URL, prefix });
    const published: string[] = [];
    const counting = {
      publish: async (type: string, e: object) => {
        await bus.publish(type, e);
        published.push((e as FlagEvent).id!);
      },
      subscribe: bus.subscribe.bind(bus),
      ready: bus.ready.bind(bus),
      close: bus.close.bind(bus),
    };
    const relay = new OutboxRelay({ pool, bus: counting, log: quiet, pollIntervalMs: 20, batchSize: 7 });
    t.teardown(async () => {
      await relay.stop();
      await bus.close();
      await pool.end();
    });
    return { relay, published };
  });
  await Promise.all(relays.map((r) => r.relay.start()));

  const writes = 60;
  await Promise.all(
    Array.from({ length: writes }, (_, i) =>
      i % 2 === 0
        ? app.inject({ method: 'PUT', url, headers: admin, payload: { value: i % 4 === 0 } })
        : app.inject({
            method: 'PUT',
            url: `/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags/cli_access.enabled`,
            headers: admin,
            payload: { value: i % 3 === 0 },
          }),
    ),
  );
  await until('every event delivered', () => (seen.length >= writes ? true : undefined), 10_000);
  // A relay publishes before it marks, in one transaction: the last marks commit just after the
  // last message arrives.
  const rows = await until(
    'the last batch to commit',
    async () => {
      const { rows } = await app.pg.query<{ id: string; scope_key: string; delivered_at: Date | null }>(
        'SELECT id, scope_key, delivered_at FROM outbox_events ORDER BY id',
      );
      return rows.every((r) => r.delivered_at !== null) ? rows : undefined;
    },
    5000,
  );
  t.equal(rows.length, writes);
  t.ok(
    rows.every((r) => r.delivered_at !== null),
    'every event is marked delivered',
  );
  const publishedIds = [...relays[0]!.published, ...relays[1]!.published];
  t.equal(publishedIds.length, writes, 'the two relays together published each event exactly once');
  t.equal(new Set(publishedIds).size, writes);
  t.comment(`work split between the relays: ${relays[0]!.published.length}/${relays[1]!.published.length}`);
  const byScope = new Map<string, number[]>();
  for (const e of seen) {
    const key = e.scope.type === 'platform' ? 'platform' : e.scope.clusterId;
    byScope.set(key, [...(byScope.get(key) ?? []), Number(e.id)]);
  }
  for (const [scope, ids] of byScope)
    t.same(
      ids,
      [...ids].sort((a, b) => a - b),
      `events of ${scope} arrive in commit order`,
    );
});
