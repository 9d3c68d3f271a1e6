import t from 'tap';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/config/index.js';
import { nodeEntry } from '@gsp/service-kit/testing/entry';

const SECRET = 'a-development-secret-of-32-bytes-or-more';

t.test('defaults apply when only a token verifier is configured', async (t) => {
  const config = loadConfig({ AUTH_JWT_SECRET: SECRET });
  t.match(config, {
    port: 8081,
    metricsPort: 9092,
    host: '127.0.0.1',
    databaseUrl: undefined,
    platformId: 'default',
    flags: { ttlMs: 10_000, ofrep: undefined },
    oidc: undefined,
    platformAdmins: [],
  });
  t.equal(config.flags.pins.size, 0);
  t.equal(config.jwt?.audience, 'gsp-api');
});

t.test('AUTH_JWT_AUDIENCE sets the audience of HS256 tokens', async (t) => {
  const config = loadConfig({ AUTH_JWT_SECRET: SECRET, AUTH_JWT_AUDIENCE: 'gsp-api-staging' });
  t.equal(config.jwt?.audience, 'gsp-api-staging');
});

t.test('each bad setting is refused with a message naming the variable', async (t) => {
  const cases: [Record<string, string>, string][] = [
    [{}, 'AUTH_JWT_SECRET'],
    [{ AUTH_JWT_SECRET: 'short' }, 'AUTH_JWT_SECRET'],
    [{ AUTH_JWT_SECRET: SECRET, PORT: 'eighty' }, 'PORT'],
    [{ AUTH_JWT_SECRET: SECRET, PORT: '70000' }, 'PORT'],
    [{ AUTH_JWT_SECRET: SECRET, SERVICE_CLI_ACCESS_ENABLED: 'yes' }, 'SERVICE_CLI_ACCESS_ENABLED'],
    [{ AUTH_JWT_SECRET: SECRET, SERVICE_CACHE_FLAGS_TTL: 'soon' }, 'SERVICE_CACHE_FLAGS_TTL'],
    [{ AUTH_JWT_SECRET: SECRET, DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ AUTH_JWT_SECRET: SECRET, PLATFORM_ID: 'Not Valid' }, 'PLATFORM_ID'],
    [{ AUTH_OIDC_ISSUER_URL: 'https://issuer.example' }, 'AUTH_OIDC_AUDIENCE'],
    [{ AUTH_OIDC_ISSUER_URL: 'not a url', AUTH_OIDC_AUDIENCE: 'x' }, 'AUTH_OIDC_ISSUER_URL'],
    [{ AUTH_JWT_SECRET: SECRET, AUTH_JWT_SECRET_FILE: '/nonexistent' }, 'AUTH_JWT_SECRET'],
    [{ AUTH_JWT_SECRET: SECRET, SERVICE_FLAGS_PROVIDER: 'launchdarkly' }, 'SERVICE_FLAGS_PROVIDER'],
    [{ AUTH_JWT_SECRET: SECRET, SERVICE_FLAGS_PROVIDER: 'ofrep' }, 'OFREP_URL'],
    [{ AUTH_JWT_SECRET: SECRET, REDIS_URL: 'http://redis' }, 'REDIS_URL'],
    [{ AUTH_JWT_SECRET: SECRET, OUTBOX_POLL_INTERVAL: '1ms' }, 'OUTBOX_POLL_INTERVAL'],
    [{ AUTH_JWT_SECRET: SECRET, OUTBOX_RELAY_ENABLED: 'yes' }, 'OUTBOX_RELAY_ENABLED'],
    [{ AUTH_JWT_SECRET_FILE: '/nonexistent/secret' }, 'AUTH_JWT_SECRET_FILE'],
    [{ AUTH_JWT_SECRET: SECRET, DATABASE_CONNECT_TIMEOUT: '0' }, 'DATABASE_CONNECT_TIMEOUT'],
    [{ AUTH_JWT_SECRET: SECRET, DATABASE_STATEMENT_TIMEOUT: 'forever' }, 'DATABASE_STATEMENT_TIMEOUT'],
    [{ AUTH_JWT_SECRET: SECRET, HTTP_HEADERS_TIMEOUT: '10ms' }, 'HTTP_HEADERS_TIMEOUT'],
    [{ AUTH_JWT_SECRET: SECRET, HTTP_REQUEST_TIMEOUT: 'never' }, 'HTTP_REQUEST_TIMEOUT'],
    [{ AUTH_JWT_SECRET: SECRET, EVENTS_HEARTBEAT: 'often' }, 'EVENTS_HEARTBEAT'],
    [{ AUTH_JWT_SECRET: SECRET, PRESENCE_SWEEP_INTERVAL: '1ms' }, 'PRESENCE_SWEEP_INTERVAL'],
    [{ AUTH_JWT_SECRET: SECRET, EVENTS_REPLAY_LIMIT: '-1' }, 'EVENTS_REPLAY_LIMIT'],
    [{ AUTH_JWT_SECRET: SECRET, EVENTS_MAX_BACKLOG_BYTES: '1024' }, 'EVENTS_MAX_BACKLOG_BYTES'],
    // An HS256 audience without an HS256 secret would have no effect.
    [
      { AUTH_OIDC_ISSUER_URL: 'https://i.example', AUTH_OIDC_AUDIENCE: 'x', AUTH_JWT_AUDIENCE: 'y' },
      'AUTH_JWT_AUDIENCE',
    ],
  ];
  for (const [env, variable] of cases) {
    t.throws(() => loadConfig(env), { name: 'ConfigError', variable }, `${JSON.stringify(env)} names ${variable}`);
  }
});

t.test('database and client timeouts have documented defaults and take durations', async (t) => {
  const defaults = loadConfig({ AUTH_JWT_SECRET: SECRET });
  t.equal(defaults.databaseConnectTimeoutMs, 2000);
  t.equal(defaults.databaseStatementTimeoutMs, 5000);
  t.same(defaults.http, { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 72_000 });
  const set = loadConfig({
    AUTH_JWT_SECRET: SECRET,
    DATABASE_CONNECT_TIMEOUT: '500ms',
    DATABASE_STATEMENT_TIMEOUT: '1.5s',
    HTTP_HEADERS_TIMEOUT: '2s',
  });
  t.equal(set.databaseConnectTimeoutMs, 500);
  t.equal(set.databaseStatementTimeoutMs, 1500);
  t.equal(set.http.headersTimeoutMs, 2000);
});

t.test('secrets can come from files mounted by Kubernetes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'api-config-'));
  writeFileSync(join(dir, 'secret'), `${SECRET}\n`);
  const config = loadConfig({ AUTH_JWT_SECRET_FILE: join(dir, 'secret') });
  t.equal(new TextDecoder().decode(config.jwt?.secret), SECRET);
});

t.test('durations, pins and admin lists are parsed', async (t) => {
  const config = loadConfig({
    AUTH_JWT_SECRET: SECRET,
    SERVICE_CACHE_FLAGS_TTL: '500ms',
    SERVICE_CLI_ACCESS_ENABLED: 'false',
    PLATFORM_ADMINS: ' alice, bob ,,',
  });
  t.equal(config.flags.ttlMs, 500);
  t.equal(config.flags.pins.get('cli_access.enabled'), false);
  t.same(config.platformAdmins, ['alice', 'bob']);
  t.ok(new ConfigError('X', 'y').message.startsWith('X: '));
});

t.test('the process refuses to start on a bad setting and says which one', async (t) => {
  const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));
  const result = spawnSync(process.execPath, nodeEntry(server), {
    env: { PATH: process.env.PATH, AUTH_JWT_SECRET: SECRET, SERVICE_CLI_ACCESS_ENABLED: 'maybe' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  t.equal(result.status, 1);
  t.match(result.stderr, /SERVICE_CLI_ACCESS_ENABLED/);
  t.notMatch(result.stderr, /\n\s+at /, 'a message, not a stack trace');
});
