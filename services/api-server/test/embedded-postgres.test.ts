import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { JWT_SECRET, PLATFORM_ADMIN, bearer, until } from './helper.js';
import { nodeEntry } from '@gsp/service-kit/testing/entry';

const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));

// DATABASE_URL deliberately absent: the service starts its own PostgreSQL under DATA_DIR.
t.test('without DATABASE_URL the API runs on an embedded PostgreSQL that keeps its data', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-embedded-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { AUTH_JWT_SECRET: JWT_SECRET, PLATFORM_ADMINS: PLATFORM_ADMIN, DATA_DIR: dataDir };
  const headers = await bearer(PLATFORM_ADMIN);

  const first = await buildApp(loadConfig(env), false);
  try {
    t.equal((await first.inject('/readyz')).statusCode, 200);
    const put = await first.inject({
      method: 'PUT',
      url: '/api/v1/platform/feature-flags/cli_access.enabled',
      headers,
      payload: { value: false },
    });
    t.equal(put.statusCode, 200);
    t.equal(put.json().effective, false);
  } finally {
    await first.close();
  }

  const second = await buildApp(loadConfig(env), false);
  try {
    const read = await second.inject({ url: '/api/v1/platform/feature-flags', headers });
    t.match(
      read.json().flags[0],
      {
        key: 'cli_access.enabled',
        value: false,
        platformDefault: false,
        source: 'platform',
        envPinned: false,
        platformRecord: { value: false, actor: PLATFORM_ADMIN, actorRole: 'platform-admin' },
      },
      'the value and its record survived a restart',
    );
  } finally {
    await second.close();
  }
});

t.test(
  'run alone and stopped with Ctrl-C, the API server closes its pool before its PostgreSQL: no warning',
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'api-embedded-sigint-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const child = spawn(process.execPath, nodeEntry(server), {
      env: { PATH: process.env.PATH, AUTH_JWT_SECRET: JWT_SECRET, DATA_DIR: dataDir, PORT: '0', METRICS_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.teardown(() => void child.kill('SIGKILL'));
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    // A first start runs initdb: many seconds on a busy machine.
    const address = await until(
      'the server to listen',
      () => /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1],
      90_000,
      50,
    );
    // A connection of the pool is idle now, as it is after any request.
    t.equal((await fetch(`${address}/readyz`)).status, 200, 'ready on its embedded PostgreSQL');
    const before = output.length;

    child.kill('SIGINT');
    t.same(await exited, { code: 0, signal: null }, 'exit code 0');
    const stopping = output.slice(before);
    t.notMatch(stopping, /idle database connection failed/, 'no pool connection terminated under it');
    t.notMatch(stopping, /"level":(4|5|6)\d/, 'no warning or error while stopping');
  },
);
