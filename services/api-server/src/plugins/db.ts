import fp from 'fastify-plugin';
import pg from 'pg';
import { startEmbeddedPostgres } from '../db/embedded.js';
import { migrate } from '../db/migrate.js';

declare module 'fastify' {
  interface FastifyInstance {
    pg: pg.Pool;
  }
}

export interface DbPluginOptions {
  /** Unset: an embedded PostgreSQL is started under `dataDir` and stopped on close. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Opening a connection, or waiting for a free one (`DATABASE_CONNECT_TIMEOUT`). */
  connectTimeoutMs: number;
  /** One statement, and a transaction left idle (`DATABASE_STATEMENT_TIMEOUT`). */
  statementTimeoutMs: number;
}

/**
 * How much longer than the server's statement timeout the client waits for an answer. A live
 * server cancels a slow statement itself (its connection stays usable); an answer later than this
 * means the network or the server stalled, and only the client can end the wait.
 */
export const ANSWER_MARGIN_MS = 1000;

/**
 * Resolves once every connection has closed. `pool.end()` resolves as soon as it has said goodbye to
 * each idle connection, before the server has read it: a PostgreSQL stopped in that gap terminates
 * them, and each reports an error (seen under load as "idle database connection failed").
 */
function allEnded(pool: pg.Pool, open: Set<pg.PoolClient>): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (open.size > 0) return;
      pool.off('remove', check);
      resolve();
    };
    pool.on('remove', check);
    check();
  });
}

export default fp<DbPluginOptions>(
  async (app, opts) => {
    const embedded = opts.databaseUrl === undefined ? await startEmbeddedPostgres(opts.dataDir) : undefined;
    if (embedded) app.log.info({ dataDir: opts.dataDir }, 'DATABASE_URL unset: started embedded PostgreSQL');
    if (embedded && embedded.madeReachable.length > 0) {
      app.log.warn(
        { directories: embedded.madeReachable },
        'gave these directories the search bit (o+x) so the postgres OS user can reach the embedded PostgreSQL',
      );
    }
    const connectionString = embedded?.url ?? opts.databaseUrl;
    const pool = new pg.Pool({
      connectionString,
      max: 10,
      connectionTimeoutMillis: opts.connectTimeoutMs,
      statement_timeout: opts.statementTimeoutMs,
      // A transaction whose client went silent would hold its row and advisory locks until TCP gave up.
      idle_in_transaction_session_timeout: opts.statementTimeoutMs,
      query_timeout: opts.statementTimeoutMs + ANSWER_MARGIN_MS,
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', (err) => app.log.warn({ err: { message: err.message } }, 'idle database connection failed'));
    // pg-pool listens for errors only on idle clients; a checked-out client whose connection
    // breaks between two queries would otherwise emit an uncaught 'error'. Its next query fails.
    const open = new Set<pg.PoolClient>();
    pool.on('connect', (client) => {
      open.add(client);
      client.on('error', (err) =>
        app.log.debug({ err: { message: err.message } }, 'database connection failed while in use'),
      );
    });
    pool.on('remove', (client) => open.delete(client));
    app.decorate('pg', pool);
    const release = async () => {
      // A stalled database never acknowledges the goodbye; closing must not wait for it.
      let timer: NodeJS.Timeout | undefined;
      const given = new Promise<void>((resolve) => (timer = setTimeout(resolve, opts.connectTimeoutMs)));
      await Promise.race([Promise.all([pool.end(), allEnded(pool, open)]), given]).finally(() => clearTimeout(timer));
      await embedded?.stop();
    };
    let applied: string[];
    // Migrations may wait for another replica's lock and build indexes on large tables: their own
    // connection, without the request timeouts.
    const migrations = new pg.Pool({ connectionString, max: 1, connectionTimeoutMillis: opts.connectTimeoutMs });
    migrations.on('error', () => {});
    try {
      applied = await migrate(migrations).finally(() => migrations.end());
    } catch (err) {
      // Boot fails; onClose hooks would not run, so release what was opened here.
      await release();
      throw err;
    }
    app.addHook('onClose', release);
    if (applied.length > 0) app.log.info({ applied }, 'database migrations applied');
  },
  { name: 'db' },
);
