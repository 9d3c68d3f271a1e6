import t from 'tap';
import pg from 'pg';
import { migrate } from '../src/db/migrate.js';
import { MIGRATIONS } from '../src/db/migrations.js';
import { freshSchema } from './helper.js';

t.test('replicas starting together apply each migration exactly once', async (t) => {
  const { url } = await freshSchema(t);
  const pools = [new pg.Pool({ connectionString: url }), new pg.Pool({ connectionString: url }), new pg.Pool({ connectionString: url })];
  t.teardown(() => Promise.all(pools.map((p) => p.end())));
  const applied = await Promise.all(pools.map((p) => migrate(p)));
  t.same(applied.flat().sort(), MIGRATIONS.map((m) => m.name).sort(), 'every migration applied by exactly one replica');
  const { rows } = await pools[0]!.query('SELECT version FROM schema_migrations ORDER BY version');
  t.same(rows.map((r) => r.version), MIGRATIONS.map((m) => m.name));
  t.same(await migrate(pools[0]!), [], 'a later start applies nothing');
});
