import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { buildApp } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config/index.js';
import { BASIC_ADMIN, baseEnv, startKube, until } from './helper.js';

t.test('with AUDIT_LOG_FILE, audit lines are appended to that file, made readable by its owner only', async (t) => {
  const kube = await startKube(t);
  const dir = mkdtempSync(join(tmpdir(), 'cp-audit-log-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // Its directory is made too, as npm start's data directory may not have it yet.
  const file = join(dir, 'control-plane', 'audit.log');
  const config = loadConfig(
    { ...baseEnv(kube), AUDIT_LOG_FILE: file },
    { serviceAccountNamespaceFile: '/nonexistent' },
  );
  t.equal(config.auditLogFile, file);
  // No audit stream of a test's: the service's own choice, as in production.
  const app = await buildApp(config, { logger: false });
  t.teardown(() => app.close());
  await app.ready();
  for (let i = 0; i < 2; i++) {
    const res = await app.inject({ url: '/api/v1/session', headers: BASIC_ADMIN });
    t.equal(res.statusCode, 200);
  }
  const lines = await until('both lines in the file', () => {
    const text = readFileSync(file, 'utf8');
    const found = text.split('\n').filter((l) => l.includes('"path":"/api/v1/session"'));
    return found.length === 2 ? found : undefined;
  });
  t.match(
    JSON.parse(lines[0]!),
    { level: 'audit', user: 'root', method: 'GET', status: 200 },
    'one JSON line a request',
  );
  t.equal(statSync(file).mode & 0o777, 0o600, 'mode 0600');
  await app.close();

  // A restart appends: the earlier lines stay.
  const again = await buildApp(config, { logger: false });
  t.teardown(() => again.close());
  await again.ready();
  await again.inject({ url: '/api/v1/session', headers: BASIC_ADMIN });
  await until(
    'the third line',
    () => readFileSync(file, 'utf8').match(/\/api\/v1\/session/g)?.length === 3 || undefined,
  );
  t.pass('appended after a restart');
});

t.test('an AUDIT_LOG_FILE that cannot be opened stops the start, naming the variable', async (t) => {
  const kube = await startKube(t);
  const config = loadConfig(
    { ...baseEnv(kube), AUDIT_LOG_FILE: '/proc/version/audit.log' },
    { serviceAccountNamespaceFile: '/nonexistent' },
  );
  const error = await buildApp(config, { logger: false }).then(
    () => undefined,
    (err: unknown) => err,
  );
  t.ok(error instanceof ConfigError, 'a configuration error');
  t.equal((error as ConfigError).variable, 'AUDIT_LOG_FILE');
  t.match((error as ConfigError).message, /\/proc\/version\/audit\.log cannot be opened for appending/);
});
