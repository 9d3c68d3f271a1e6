import t from 'tap';
import { waitUntil } from '@gsp/service-kit';
import { busesConstructed, createEventBus, LocalEventBus, processLocalBus, RedisEventBus } from '@gsp/events';

const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const quiet = { warn() {} };

t.test('two process-local buses hear each other, and closing one ends only its own subscriptions', async (t) => {
  const a = processLocalBus();
  const b = processLocalBus();
  const heardByA: unknown[] = [];
  const heardByB: unknown[] = [];
  a.subscribe('x', { event: (payload) => heardByA.push(payload) });
  b.subscribe('x', { event: (payload) => heardByB.push(payload) });
  await a.publish('x', { n: 1 });
  t.same(heardByB, [{ n: 1 }], 'b heard what a published');
  await a.close();
  await b.publish('x', { n: 2 });
  t.same(heardByA, [{ n: 1 }], 'a hears nothing once closed');
  t.same(heardByB, [{ n: 1 }, { n: 2 }], 'b still hears');
  await b.close();
});

t.test('a private local bus hears only what is published on it', async (t) => {
  const own = new LocalEventBus();
  const heard: unknown[] = [];
  own.subscribe('x', { event: (payload) => heard.push(payload) });
  await processLocalBus().publish('x', { from: 'process' });
  await own.publish('x', { from: 'own' });
  t.same(heard, [{ from: 'own' }]);
  const off = own.subscribe('y', { event: (payload) => heard.push(payload) });
  off();
  await own.publish('y', {});
  t.equal(heard.length, 1, 'unsubscribed');
  await own.close();
});

t.test('without a Redis URL the bus is process-local, with one it is Redis', async (t) => {
  t.type(createEventBus({ log: quiet }), LocalEventBus);
  const bus = createEventBus({ redisUrl: TEST_REDIS_URL, prefix: `gsp-events-test-${process.pid}-`, log: quiet });
  t.teardown(() => bus.close());
  t.type(bus, RedisEventBus);
  const heard: unknown[] = [];
  bus.subscribe('x', { event: (payload) => heard.push(payload) });
  await bus.ready();
  await bus.publish('x', { over: 'redis' });
  await waitUntil(() => heard.length > 0, { timeoutMs: 5000, intervalMs: 5, what: 'the event back from Redis' });
  t.same(heard, [{ over: 'redis' }]);
});

t.test('every bus constructed is counted, whatever its kind', async (t) => {
  const before = busesConstructed();
  const local = processLocalBus();
  const own = new LocalEventBus();
  const redis = new RedisEventBus({ url: TEST_REDIS_URL });
  t.equal(busesConstructed() - before, 3);
  await Promise.all([local.close(), own.close(), redis.close()]);
});

t.test('a Redis connection error is logged with the text operators know', async (t) => {
  const warnings: string[] = [];
  const bus = createEventBus({ redisUrl: 'redis://127.0.0.1:1', log: { warn: (_obj, msg) => warnings.push(msg) } });
  t.teardown(() => bus.close());
  await waitUntil(() => warnings.length > 0, { timeoutMs: 5000, intervalMs: 5, what: 'a warning' });
  t.equal(warnings[0], 'flag invalidation channel error; caches expire by TTL meanwhile');
});
