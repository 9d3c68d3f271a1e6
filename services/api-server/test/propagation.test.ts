import t from 'tap';
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeEntry } from '@gsp/service-kit/testing/entry';
import { bearer, build, PLATFORM_ADMIN, redisPrefix, TEST_REDIS_URL, until } from './helper.js';

const fixture = fileURLToPath(new URL('./fixtures/flags-client-process.ts', import.meta.url));
const url = '/api/v1/platform/feature-flags/cli_access.enabled';

interface Reader {
  child: ChildProcess;
  seen: { value: boolean; at: number }[];
}

function startReader(t: Tap, env: Record<string, string>): Reader {
  const [file, ...execArgv] = nodeEntry(fixture).reverse();
  const child = fork(file as string, [], { env: { ...process.env, ...env }, execArgv: execArgv.reverse() });
  const reader: Reader = { child, seen: [] };
  child.on('message', (m) => reader.seen.push(m as { value: boolean; at: number }));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  );
  return reader;
}

type Tap = { teardown(fn: () => unknown): void };

/** Waits until every reader's latest value is `value`; answers how long after `since` each saw it. */
async function observed(readers: Reader[], value: boolean, since: number, ms: number): Promise<number[]> {
  return until(
    `both readers to see ${value}`,
    () => {
      const lags = readers.map((r) => {
        const last = r.seen.at(-1);
        return last?.value === value ? last.at - since : undefined;
      });
      return lags.every((l) => l !== undefined) ? (lags as number[]) : undefined;
    },
    ms,
  );
}

t.test('with Redis, a platform write reaches flags clients in two other processes within 200 ms', async (t) => {
  const prefix = redisPrefix();
  const { app, databaseUrl } = await build(t, { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix });
  const headers = await bearer(PLATFORM_ADMIN);
  // A TTL of a minute: anything faster than that is the invalidation channel at work.
  const readers = [0, 1].map(() =>
    startReader(t, { DATABASE_URL: databaseUrl, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, TTL_MS: '60000' }),
  );
  await observed(readers, true, 0, 30_000);

  const off = await app.inject({ method: 'PUT', url, headers, payload: { value: false } });
  t.equal(off.statusCode, 200);
  const offLags = await observed(readers, false, Date.now(), 2000);
  t.ok(
    offLags.every((l) => l < 200),
    `turned off everywhere within 200 ms (saw ${offLags.join(', ')} ms)`,
  );

  const on = await app.inject({ method: 'DELETE', url, headers });
  t.equal(on.statusCode, 200);
  const onLags = await observed(readers, true, Date.now(), 2000);
  t.ok(
    onLags.every((l) => l < 200),
    `back on everywhere within 200 ms (saw ${onLags.join(', ')} ms)`,
  );
});

t.test('without Redis, flags clients in other processes converge within the cache TTL', async (t) => {
  const ttl = 500;
  const { app, databaseUrl } = await build(t);
  const headers = await bearer(PLATFORM_ADMIN);
  const readers = [0, 1].map(() => startReader(t, { DATABASE_URL: databaseUrl, REDIS_URL: '', TTL_MS: String(ttl) }));
  await observed(readers, true, 0, 30_000);

  t.equal((await app.inject({ method: 'PUT', url, headers, payload: { value: false } })).statusCode, 200);
  const offLags = await observed(readers, false, Date.now(), 5000);
  // The TTL bounds staleness; the slack covers two busy processes on two cores.
  t.ok(
    offLags.every((l) => l <= ttl + 250),
    `off within the ${ttl} ms TTL (saw ${offLags.join(', ')} ms)`,
  );

  t.equal((await app.inject({ method: 'DELETE', url, headers })).statusCode, 200);
  const onLags = await observed(readers, true, Date.now(), 5000);
  t.ok(
    onLags.every((l) => l <= ttl + 250),
    `on within the TTL (saw ${onLags.join(', ')} ms)`,
  );
});
