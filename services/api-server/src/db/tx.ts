import type pg from 'pg';
import { isDatabaseUnavailable } from './availability.js';

/** One query runner for every store: the contract's, which the shared reads take. */
export type { Queryable } from '@gsp/platform-contract';

/**
 * Runs `fn` in one transaction: everything it wrote commits together or not at all.
 *
 * When the connection fails or stalls, it is dropped rather than rolled back: the ROLLBACK would
 * wait as long again, and PostgreSQL rolls back a transaction whose session ends. If that happens
 * during COMMIT, the outcome is unknown to us (the whole transaction committed, or none of it).
 */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    broken =
      isDatabaseUnavailable(err) ||
      (await client.query('ROLLBACK').then(
        () => false,
        () => true,
      ));
    throw err;
  } finally {
    client.release(broken);
  }
}
