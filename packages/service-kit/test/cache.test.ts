import t from 'tap';
import { LoadingCache } from '@gsp/service-kit';

/** A load whose answers the test releases one at a time. */
function gate<V>() {
  const waiting: { key: string; resolve(v: V): void; reject(e: Error): void }[] = [];
  const load = (key: string) => new Promise<V>((resolve, reject) => waiting.push({ key, resolve, reject }));
  return { load, waiting };
}

t.test('concurrent misses of one key share one load, and the answer is served fresh until the TTL', async (t) => {
  const { load, waiting } = gate<number>();
  const cache = new LoadingCache(load, { ttlMs: 60_000 });
  const both = Promise.all([cache.get('a'), cache.get('a')]);
  t.equal(waiting.length, 1, 'one load for two readers');
  waiting[0]!.resolve(1);
  t.same(await both, [
    { value: 1, stale: false },
    { value: 1, stale: false },
  ]);
  t.equal(cache.fresh('a'), 1);
  t.same(await cache.get('a'), { value: 1, stale: false });
  t.equal(waiting.length, 1, 'no second load within the TTL');
});

t.test('a failed reload serves the expired value as stale; with nothing known it fails', async (t) => {
  let fail = false;
  const cache = new LoadingCache(
    async (key: string) => {
      if (fail) throw new Error('down');
      return `${key}!`;
    },
    { ttlMs: 0 },
  );
  t.same(await cache.get('a'), { value: 'a!', stale: false });
  fail = true;
  t.same(await cache.get('a'), { value: 'a!', stale: true });
  await t.rejects(cache.get('b'), /down/);
});

t.test('a load that takes too long fails after the timeout', async (t) => {
  const cache = new LoadingCache(() => new Promise<never>(() => {}), { ttlMs: 1000, timeoutMs: 20 });
  await t.rejects(cache.get('a'), /did not answer within 20 ms/);
});

t.test('a delete during a load keeps its answer out of the cache and out of later readers', async (t) => {
  const { load, waiting } = gate<string>();
  const cache = new LoadingCache(load, { ttlMs: 60_000 });
  const early = cache.get('a');
  cache.delete('a');
  const late = cache.get('a');
  t.equal(waiting.length, 2, 'the reader after the delete starts a load of its own');
  waiting[0]!.resolve('before');
  waiting[1]!.resolve('after');
  t.equal((await early).value, 'before');
  t.equal((await late).value, 'after');
  t.equal(cache.fresh('a'), 'after', 'only the load that started after the delete is kept');
});

t.test('deleteWhere and clear drop matching entries; the oldest goes past maxEntries', async (t) => {
  const cache = new LoadingCache(async (key: string) => key.length, { ttlMs: 60_000, maxEntries: 2 });
  await cache.get('a');
  await cache.get('bb');
  await cache.get('ccc');
  t.equal(cache.size, 2);
  t.equal(cache.fresh('a'), undefined, 'the oldest entry was dropped');
  cache.deleteWhere((k) => k.startsWith('b'));
  t.equal(cache.fresh('bb'), undefined);
  t.equal(cache.fresh('ccc'), 3);
  cache.clear();
  t.equal(cache.size, 0);
});

t.test('while the store stays down, the stale value is served at once and retried in the background', async (t) => {
  let mode: 'up' | 'failing' | 'hanging' = 'up';
  let loads = 0;
  let release = (): void => undefined;
  const cache = new LoadingCache(
    (key: string) => {
      loads += 1;
      if (mode === 'failing') return Promise.reject(new Error('down'));
      if (mode === 'hanging') return new Promise<string>((resolve) => (release = () => resolve(`${key}@late`)));
      return Promise.resolve(`${key}@${loads}`);
    },
    { ttlMs: 0, timeoutMs: 60_000, retryAfterMs: 0 },
  );
  t.same(await cache.get('a'), { value: 'a@1', stale: false });
  mode = 'failing';
  t.same(await cache.get('a'), { value: 'a@1', stale: true }, 'a failed reload serves the last value');
  mode = 'hanging';
  // Were the reader to wait for this retry, it would wait a minute: it answers at once instead.
  t.same(await cache.get('a'), { value: 'a@1', stale: true });
  t.same(await cache.get('a'), { value: 'a@1', stale: true });
  t.equal(loads, 3, 'one retry runs in the background, shared by later readers');
  release(); // the store answers at last, so the minute-long timer does not hold the test's process
});
