import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { JWT_SECRET, PLATFORM_ADMIN, bearer } from './helper.js';

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
