import type pg from 'pg';
import { MIGRATIONS } from './migrations.js';

/**
 * Applies the migrations not yet recorded, in order, each in its own transaction, under a
 * session advisory lock so several replicas starting together migrate exactly once.
 * The lock key includes the schema, so separate schemas (tests) do not wait for each other.
 */
export async function migrate(pool: pg.Pool): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query(`SELECT pg_advisory_lock(hashtext(current_schema() || ':gsp-api-server-migrations'))`);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
      const done = new Set(
        (await client.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
      );
      for (const { name, sql } of MIGRATIONS) {
        if (done.has(name)) continue;
        await client.query('BEGIN');
        try {
          await client.query(sql);
          await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [name]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${name} failed: ${(err as Error).message}`, { cause: err });
        }
        applied.push(name);
      }
    } finally {
      await client.query(`SELECT pg_advisory_unlock(hashtext(current_schema() || ':gsp-api-server-migrations'))`);
    }
  } finally {
    client.release();
  }
  return applied;
}
