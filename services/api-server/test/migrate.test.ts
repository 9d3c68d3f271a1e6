import t from 'tap';
import pg from 'pg';
import { migrate } from '../src/db/migrate.js';
import { MIGRATIONS } from '../src/db/migrations.js';
import { freshSchema } from './helper.js';

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
