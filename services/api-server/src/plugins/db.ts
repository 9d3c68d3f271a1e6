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
}

export default fp<DbPluginOptions>(
  async (app, opts) => {
    const embedded = opts.databaseUrl === undefined ? await startEmbeddedPostgres(opts.dataDir) : undefined;
    if (embedded) app.log.info({ dataDir: opts.dataDir }, 'DATABASE_URL unset: started embedded PostgreSQL');
    if (embedded && embedded.madeReachable.length > 0) {
      app.log.warn({ directories: embedded.madeReachable }, 'gave these directories the search bit (o+x) so the postgres OS user can reach the embedded PostgreSQL');
    }
    const pool = new pg.Pool({ connectionString: embedded?.url ?? opts.databaseUrl, max: 10 });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', (err) => app.log.warn({ err: { message: err.message } }, 'idle database connection failed'));
    // pg-pool listens for errors only on idle clients; a checked-out client whose connection
    // breaks between two queries would otherwise emit an uncaught 'error'. Its next query fails.
    pool.on('connect', (client) => client.on('error', (err) => app.log.debug({ err: { message: err.message } }, 'database connection failed while in use')));
    app.decorate('pg', pool);
    const release = async () => {
      await pool.end();
      await embedded?.stop();
    };
    let applied: string[];
    try {
      applied = await migrate(pool);
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
