import t from 'tap';
import pg from 'pg';
import { LocalEventBus } from '@gsp/events';
import { createFlagsClient, FlagsClientError } from '@gsp/flags-client';
import { FLAG_UPDATED_EVENT, isFlagEvent } from '@gsp/platform-contract';

// A pool that is never connected: these behaviours must not touch the store at all.
const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none', connectionTimeoutMillis: 100 });
t.teardown(() => pool.end());

t.test('bad options fail at construction with a precise message', async (t) => {
  t.throws(() => createFlagsClient({} as never), { code: 'ERR_FLAGS_OPTIONS', message: /pool/ });
  const bus = new LocalEventBus();
  t.throws(() => createFlagsClient({ pool, bus, ttlMs: -1 }), { code: 'ERR_FLAGS_OPTIONS', message: /ttlMs/ });
  t.throws(() => createFlagsClient({ pool, bus, storeTimeoutMs: Number.NaN }), {
    code: 'ERR_FLAGS_OPTIONS',
    message: /storeTimeoutMs/,
  });
  t.throws(() => createFlagsClient({ pool, bus, env: { SERVICE_CLI_ACCESS_ENABLED: 'on' } }), {
    code: 'ERR_FLAG_ENV_PIN',
    name: 'ConfigError',
    variable: 'SERVICE_CLI_ACCESS_ENABLED',
  });
});

t.test('a pinned flag is answered from the environment without reading the store', async (t) => {
  const off = createFlagsClient({ pool, env: { SERVICE_CLI_ACCESS_ENABLED: 'false' }, bus: new LocalEventBus() });
  const on = createFlagsClient({ pool, env: { SERVICE_CLI_ACCESS_ENABLED: 'TRUE' }, bus: new LocalEventBus() });
  t.same(await off.cliAccess({ clusterId: 'x' }), { value: false, source: 'env', envPinned: true, stale: false });
  t.same(await on.evaluate('cli_access.enabled'), { value: true, source: 'env', envPinned: true, stale: false });
  await off.close();
  await on.close();
});

t.test('unknown flags and closed clients reject with a code the caller can switch on', async (t) => {
  const client = createFlagsClient({ pool, bus: new LocalEventBus() });
  await t.rejects(client.evaluate('no.such.flag'), { code: 'ERR_FLAG_UNKNOWN' });
  await client.close();
  await t.rejects(
    client.evaluate('cli_access.enabled'),
    new FlagsClientError('ERR_FLAGS_CLOSED', 'the flags client is closed'),
  );
});

t.test('change listeners hear platform and cluster events for their flag, and can unsubscribe', async (t) => {
  const bus = new LocalEventBus();
  const client = createFlagsClient({ pool, bus });
  const heard: unknown[] = [];
  const off = client.onChange('cli_access.enabled', (change) => heard.push(change));
  await bus.publish(FLAG_UPDATED_EVENT, {
    flag: 'cli_access.enabled',
    actor: 'a',
    scope: { type: 'cluster', org: 'o', clusterId: 'c1' },
    value: false,
  });
  await bus.publish(FLAG_UPDATED_EVENT, {
    flag: 'cli_access.enabled',
    actor: 'a',
    scope: { type: 'platform' },
    value: null,
  });
  off();
  await bus.publish(FLAG_UPDATED_EVENT, {
    flag: 'cli_access.enabled',
    actor: 'a',
    scope: { type: 'platform' },
    value: true,
  });
  t.same(heard, [
    { key: 'cli_access.enabled', scope: { type: 'cluster', clusterId: 'c1' } },
    { key: 'cli_access.enabled', scope: { type: 'platform' } },
  ]);
  await client.close();
});

t.test('only well-formed events are accepted from the channel', async (t) => {
  t.ok(isFlagEvent({ flag: 'f', scope: { type: 'platform' } }));
  t.ok(isFlagEvent({ flag: 'f', scope: { type: 'cluster', clusterId: 'c' } }));
  for (const bad of [
    null,
    'x',
    {},
    { flag: 1, scope: { type: 'platform' } },
    { flag: 'f', scope: { type: 'cluster' } },
    { flag: 'f', scope: { type: 'galaxy' } },
  ]) {
    t.notOk(isFlagEvent(bad), JSON.stringify(bad));
  }
});
