import type pg from 'pg';

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** Runs `fn` in one transaction: everything it wrote commits together or not at all. */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
