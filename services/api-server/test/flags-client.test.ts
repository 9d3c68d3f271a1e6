import t from 'tap';
import pg from 'pg';
import { createFlagsClient, LocalFlagEventBus } from '@gsp/flags-client';
import { bearer, build, PLATFORM_ADMIN, registerCluster, seedTenant } from './helper.js';

t.test('the flags client against the API server\'s store', async (t) => {
  const { app, databaseUrl } = await build(t);
  const admin = await bearer(PLATFORM_ADMIN);
  await seedTenant(app, 'acme', { ops: 'operator' });
  const cluster = await registerCluster(app, 'acme', 'eu');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  let queries = 0;
  pool.on('acquire', () => (queries += 1));
  t.teardown(() => pool.end());

  t.test('concurrent misses for the same scope share one query', async (t) => {
    const client = createFlagsClient({ pool, env: {}, bus: new LocalFlagEventBus() });
    queries = 0;
    const results = await Promise.all(Array.from({ length: 50 }, () => client.cliAccess({ clusterId: cluster.id })));
    t.equal(queries, 1, 'one store read for 50 evaluations');
    t.ok(results.every((r) => r.value === true && r.source === 'default'));
    await client.cliAccess({ clusterId: cluster.id });
    t.equal(queries, 1, 'the next evaluation is served from the cache');
    await client.close();
  });

  t.test('a cluster override wins over the platform default, and each invalidation drops only what it must', async (t) => {
    const bus = new LocalFlagEventBus();
    const client = createFlagsClient({ pool, env: {}, bus, ttlMs: 60_000 });
    await app.inject({ method: 'PUT', url: '/api/v1/platform/feature-flags/cli_access.enabled', headers: admin, payload: { value: false } });
    await app.inject({ method: 'PUT', url: `/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags/cli_access.enabled`, headers: admin, payload: { value: true } });
    t.same(await client.cliAccess({ clusterId: cluster.id }), { value: true, source: 'cluster', envPinned: false, stale: false });
    t.same(await client.cliAccess({}), { value: false, source: 'platform', envPinned: false, stale: false });

    await app.inject({ method: 'DELETE', url: `/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags/cli_access.enabled`, headers: admin });
    t.equal((await client.cliAccess({ clusterId: cluster.id })).value, true, 'cached until told');
    await bus.publish({ flag: 'cli_access.enabled', actor: 'x', scope: { type: 'cluster', org: 'acme', clusterId: cluster.id }, value: null });
    t.same(await client.cliAccess({ clusterId: cluster.id }), { value: false, source: 'platform', envPinned: false, stale: false }, 'a cluster event drops that cluster');

    await app.inject({ method: 'DELETE', url: '/api/v1/platform/feature-flags/cli_access.enabled', headers: admin });
    await bus.publish({ flag: 'cli_access.enabled', actor: 'x', scope: { type: 'platform' }, value: null });
    t.same(await client.cliAccess({ clusterId: cluster.id }), { value: true, source: 'default', envPinned: false, stale: false }, 'a platform event drops every cluster too');
    await client.close();
  });

  t.test('an invalidation that arrives during a read is not undone by that read', async (t) => {
    const bus = new LocalFlagEventBus();
    const client = createFlagsClient({ pool, env: {}, bus, ttlMs: 60_000 });
    const reading = client.cliAccess({});
    await bus.publish({ flag: 'cli_access.enabled', actor: 'x', scope: { type: 'platform' }, value: false });
    await reading;
    await app.inject({ method: 'PUT', url: '/api/v1/platform/feature-flags/cli_access.enabled', headers: admin, payload: { value: false } });
    // Without the epoch check the read above would have cached the old value for a minute.
    t.equal((await client.cliAccess({})).value, false);
    await app.inject({ method: 'DELETE', url: '/api/v1/platform/feature-flags/cli_access.enabled', headers: admin });
    await client.close();
  });
});
