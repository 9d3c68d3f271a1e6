import t from 'tap';
import pg from 'pg';
import { migrate } from '../src/db/migrate.js';
import { MIGRATIONS } from '../src/db/migrations.js';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import type { ServiceApp } from '@gsp/service-kit';
import { JWT_SECRET, PLATFORM_ADMIN, bearer, freshSchema } from './helper.js';

t.test('replicas starting together apply each migration exactly once', async (t) => {
  const { url } = await freshSchema(t);
  const pools = [
    new pg.Pool({ connectionString: url }),
    new pg.Pool({ connectionString: url }),
    new pg.Pool({ connectionString: url }),
  ];
  t.teardown(() => Promise.all(pools.map((p) => p.end())));
  const applied = await Promise.all(pools.map((p) => migrate(p)));
  t.same(applied.flat().sort(), MIGRATIONS.map((m) => m.name).sort(), 'every migration applied by exactly one replica');
  const { rows } = await pools[0]!.query('SELECT version FROM schema_migrations ORDER BY version');
  t.same(
    rows.map((r) => r.version),
    MIGRATIONS.map((m) => m.name),
  );
  t.same(await migrate(pools[0]!), [], 'a later start applies nothing');
});

t.test('audit rows written before 002 are attributed to their tenant', async (t) => {
  const { url } = await freshSchema(t);
  const pool = new pg.Pool({ connectionString: url });
  t.teardown(() => pool.end());
  // The database as the previous release left it: 001 only, with its kinds of audit rows.
  await pool.query(
    'CREATE TABLE schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  await pool.query(MIGRATIONS[0]!.sql);
  await pool.query("INSERT INTO schema_migrations (version) VALUES ('001_init')");
  const rows: Array<[string, string, object]> = [
    ['tenants.members.set', 'tenant:acme', { subject: 'ada', role: 'admin' }],
    ['clusters.registered', 'cluster:c1', { org: 'acme', name: 'eu' }],
    [
      'featureflags.set',
      'cluster:c1',
      { flag: 'cli_access.enabled', scope: { type: 'cluster', org: 'acme', clusterId: 'c1' }, value: false },
    ],
    [
      'featureflags.set',
      'platform:default',
      { flag: 'cli_access.enabled', scope: { type: 'platform', platformId: 'default' }, value: false },
    ],
    ['tenants.members.set', 'tenant:globex', { subject: 'gus', role: 'admin' }],
  ];
  for (const [action, resource, details] of rows) {
    await pool.query("INSERT INTO audit_events (action, actor, resource, details) VALUES ($1, 'x', $2, $3)", [
      action,
      resource,
      JSON.stringify(details),
    ]);
  }
  t.same(
    await migrate(pool),
    MIGRATIONS.slice(1).map((m) => m.name),
  );
  const { rows: after } = await pool.query('SELECT resource, org FROM audit_events ORDER BY id');
  t.same(
    after.map((r) => [r.resource, r.org]),
    [
      ['tenant:acme', 'acme'],
      ['cluster:c1', 'acme'],
      ['cluster:c1', 'acme'],
      ['platform:default', null],
      ['tenant:globex', 'globex'],
    ],
  );
});

t.test('two API servers starting together on an older schema migrate it once, then both serve', async (t) => {
  const { url } = await freshSchema(t);
  const pool = new pg.Pool({ connectionString: url });
  t.teardown(() => pool.end());
  // The database as the release before the last two left it, holding a switch record.
  const old = MIGRATIONS.slice(0, -2);
  await migratePart(pool, old);
  const headers = await bearer(PLATFORM_ADMIN);

  const lines: string[] = [];
  const stream = { write: (line: string) => void lines.push(line) };
  const config = loadConfig({ DATABASE_URL: url, AUTH_JWT_SECRET: JWT_SECRET, PLATFORM_ADMINS: PLATFORM_ADMIN });
  const replicas = await Promise.all([0, 1].map(() => buildApp(config, { level: 'info', stream })));
  t.teardown(() => Promise.all(replicas.map((app) => app.close())));

  const applied = lines
    .map((line) => JSON.parse(line) as { msg: string; applied?: string[] })
    .filter((entry) => entry.msg === 'database migrations applied')
    .flatMap((entry) => entry.applied ?? []);
  t.same(
    applied,
    MIGRATIONS.slice(-2).map((m) => m.name),
    'the two new migrations, applied once, by one replica',
  );
  const { rows } = await pool.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
  t.same(
    rows.map((r) => r.version),
    MIGRATIONS.map((m) => m.name),
  );

  const [first, second] = replicas as [ServiceApp, ServiceApp];
  for (const app of replicas) t.equal((await app.inject('/readyz')).statusCode, 200, 'ready on the new schema');
  const put = await first.inject({
    method: 'PUT',
    url: '/api/v1/platform/feature-flags/cli_access.enabled',
    headers,
    payload: { value: false, reason: 'maintenance' },
  });
  t.equal(put.statusCode, 200, 'a write on one replica');
  const read = await second.inject({ url: '/api/v1/platform/feature-flags', headers });
  t.match(read.json().flags[0], { key: 'cli_access.enabled', value: false }, 'is read on the other');
});

/** Applies the given migrations as an older release would have, recording each. */
async function migratePart(pool: pg.Pool, migrations: typeof MIGRATIONS): Promise<void> {
  await pool.query(
    'CREATE TABLE schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (const { name, sql } of migrations) {
    await pool.query(sql);
    await pool.query('INSERT INTO schema_migrations (version) VALUES ($1)', [name]);
  }
}
