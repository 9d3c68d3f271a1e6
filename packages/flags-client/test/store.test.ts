import t from 'tap';
import pg from 'pg';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LocalEventBus } from '@gsp/events';
import { createFlagsClient } from '@gsp/flags-client';
import { announce, cluster, flagStore, PLATFORM } from './helper.js';

t.test('the flags client against a flag store', async (t) => {
  const store = await flagStore(t);
  const clusterId = 'c-eu';
  const pool = new pg.Pool({ connectionString: store.url, max: 4 });
  let queries = 0;
  pool.on('acquire', () => (queries += 1));
  t.teardown(() => pool.end());

  t.test('concurrent misses for the same scope share one query', async (t) => {
    const client = createFlagsClient({ pool, env: {}, bus: new LocalEventBus() });
    queries = 0;
    const results = await Promise.all(Array.from({ length: 50 }, () => client.cliAccess({ clusterId })));
    t.equal(queries, 1, 'one store read for 50 evaluations');
    t.ok(results.every((r) => r.value === true && r.source === 'default'));
    await client.cliAccess({ clusterId });
    t.equal(queries, 1, 'the next evaluation is served from the cache');
    await client.close();
  });

  t.test(
    'a cluster override wins over the platform default, and each invalidation drops only what it must',
    async (t) => {
      const bus = new LocalEventBus();
      const client = createFlagsClient({ pool, env: {}, bus, ttlMs: 60_000 });
      await store.set(PLATFORM, false);
      await store.set(cluster(clusterId), true);
      t.match(await client.cliAccess({ clusterId }), {
        value: true,
        source: 'cluster',
        envPinned: false,
        stale: false,
      });
      t.match(await client.cliAccess({}), { value: false, source: 'platform', envPinned: false, stale: false });

      await store.set(cluster(clusterId), null);
      t.equal((await client.cliAccess({ clusterId })).value, true, 'cached until told');
      await announce(bus, cluster(clusterId), null);
      t.match(
        await client.cliAccess({ clusterId }),
        { value: false, source: 'platform', envPinned: false, stale: false },
        'a cluster event drops that cluster',
      );

      await store.set(PLATFORM, null);
      await announce(bus, PLATFORM, null);
      t.match(
        await client.cliAccess({ clusterId }),
        { value: true, source: 'default', envPinned: false, stale: false },
        'a platform event drops every cluster too',
      );
      await client.close();
    },
  );

  t.test('records: who set a value, why and until when; an expired one no longer counts', async (t) => {
    const bus = new LocalEventBus();
    const client = createFlagsClient({ pool, env: {}, bus, ttlMs: 60_000 });
    const expiresAt = new Date(Date.now() + 1500);
    await store.set(PLATFORM, false, { actor: 'root', actorRole: 'platform-admin', reason: 'incident 42', expiresAt });
    const off = await client.cliAccess({ clusterId });
    t.match(off, {
      value: false,
      source: 'platform',
      record: { actor: 'root', actorRole: 'platform-admin', reason: 'incident 42', expiresAt: expiresAt.getTime() },
    });
    t.same(
      client.peekDetailed('cli_access.enabled', { clusterId }),
      await client.evaluateDetailed('cli_access.enabled', { clusterId }),
      'read from memory, without a promise, as evaluateDetailed answers',
    );
    t.equal(client.peekDetailed('cli_access.enabled', { clusterId: 'never-read' }), undefined, 'not cached: undefined');
    // No event, no store read: the cached record stops counting at its expiresAt.
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (Date.now() > expiresAt.getTime()) {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
    t.match(await client.cliAccess({ clusterId }), { value: true, source: 'default', record: undefined });
    t.equal((await client.evaluateDetailed('cli_access.enabled', { clusterId })).platformRecord, undefined);
    await announce(bus, PLATFORM, null);
    t.equal(client.peekDetailed('cli_access.enabled', { clusterId }), undefined, 'dropped by an event: undefined');
    t.match(
      await client.cliAccess({ clusterId }),
      { value: true, source: 'default' },
      'and the store leaves the expired row out',
    );
    await store.set(PLATFORM, null);
    await client.close();
  });

  t.test('an invalidation that arrives during a read is not undone by that read', async (t) => {
    const bus = new LocalEventBus();
    const client = createFlagsClient({ pool, env: {}, bus, ttlMs: 60_000 });
    const reading = client.cliAccess({});
    await announce(bus, PLATFORM, false);
    await reading;
    await store.set(PLATFORM, false);
    // Without the epoch check the read above would have cached the old value for a minute.
    t.equal((await client.cliAccess({})).value, false);
    await store.set(PLATFORM, null);
    await client.close();
  });
});

t.test('with an OFREP provider, product flags come from it and the kill switch never does', async (t) => {
  const store = await flagStore(t);
  const asked: string[] = [];
  // Stands in for an external product-flag service; it also claims the kill switch is off.
  const remote = createServer((req, res) => {
    const key = decodeURIComponent((req.url ?? '').replace(/^\/ofrep\/v1\/evaluate\/flags\//, ''));
    asked.push(key);
    req.resume().on('end', () => {
      const known: Record<string, boolean> = { 'lobby.new-ui': true, 'cli_access.enabled': false };
      res.setHeader('content-type', 'application/json');
      if (!(key in known))
        return res
          .writeHead(404)
          .end(JSON.stringify({ key, errorCode: 'FLAG_NOT_FOUND', errorDetails: 'no such flag' }));
      res.end(JSON.stringify({ key, value: known[key], reason: 'STATIC', variant: 'x' }));
    });
  });
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => remote.close(() => resolve())));
  const pool = new pg.Pool({ connectionString: store.url, max: 2 });
  t.teardown(() => pool.end());
  const client = createFlagsClient({
    pool,
    env: {},
    bus: new LocalEventBus(),
    ofrep: { url: `http://127.0.0.1:${(remote.address() as AddressInfo).port}` },
  });
  t.teardown(() => client.close());

  t.same(await client.evaluate('lobby.new-ui', { org: 'acme' }), {
    value: true,
    source: 'provider',
    envPinned: false,
    stale: false,
  });
  t.same(
    await client.cliAccess({}),
    { value: true, source: 'default', envPinned: false, stale: false },
    'the kill switch is read from our store',
  );
  await t.rejects(client.evaluate('nobody.knows'), { code: 'ERR_FLAG_UNKNOWN' });
  t.same(asked, ['lobby.new-ui', 'nobody.knows'], 'the provider was never asked about a registry flag');
});
