import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Test } from 'tap';
import { ConfigError, loadConfig } from '../src/config/index.js';
import { rolesFile } from './helper.js';
import { nodeEntry } from '@gsp/service-kit/testing/entry';

const base = { KUBECONFIG: '/tmp/kubeconfig', AUTH_MODE: 'apikey' };
/** Basic authentication's required variables. */
const BASIC_USER = { AUTH_BASIC_USER: 'u', AUTH_BASIC_PASSWORD: 'p' };
const load = (env: Record<string, string | undefined>) =>
  loadConfig({ ...base, ...env }, { serviceAccountNamespaceFile: '/nonexistent' });

function refuses(t: Test, env: Record<string, string | undefined>, variable: string, message: RegExp) {
  let error: unknown;
  try {
    load(env);
  } catch (err) {
    error = err;
  }
  t.ok(error instanceof ConfigError, `refuses ${JSON.stringify(env)}`);
  t.equal((error as ConfigError).variable, variable);
  t.match((error as ConfigError).message, message);
}

t.test("the defaults: port 8080, metrics on 9091 (not the proxy's 9090), namespace default, prefix gsp", async (t) => {
  const config = load({});
  t.equal(config.port, 8080);
  t.equal(config.metricsPort, 9091);
  t.equal(load({ METRICS_PORT: '9191' }).metricsPort, 9191);
  refuses(t, { METRICS_PORT: 'ninety' }, 'METRICS_PORT', /./);
  t.equal(config.namespace, 'default');
  t.equal(config.apikeyPrefix, 'gsp');
  t.same([...config.modes], ['apikey']);
});

t.test('a mode is on when listed or when its AUTH_*_ENABLED is true', async (t) => {
  const config = load({
    AUTH_MODE: 'apikey',
    AUTH_BASIC_ENABLED: 'true',
    ...BASIC_USER,
    AUTH_OIDC_ENABLED: 'true',
    AUTH_OIDC_ISSUER_URL: 'https://id.example',
    AUTH_OIDC_CLIENT_ID: 'cp',
  });
  t.same([...config.modes].sort(), ['apikey', 'basic', 'oidc']);
  t.same([...load({ AUTH_MODE: undefined, AUTH_APIKEY_ENABLED: 'true' }).modes], ['apikey']);
});

t.test('an unknown mode refuses to start, naming AUTH_MODE', async (t) => {
  refuses(t, { AUTH_MODE: 'apikey,ldap' }, 'AUTH_MODE', /unknown mode "ldap"/);
});

t.test('none combined with another mode refuses to start', async (t) => {
  refuses(t, { AUTH_MODE: 'none,apikey' }, 'AUTH_MODE', /"none" cannot be combined/);
  refuses(t, { AUTH_MODE: 'none', AUTH_APIKEY_ENABLED: 'true' }, 'AUTH_MODE', /"none" cannot be combined/);
});

t.test('basic without a user or without a password or hash refuses to start', async (t) => {
  refuses(t, { AUTH_MODE: 'basic', AUTH_BASIC_PASSWORD: 'p' }, 'AUTH_BASIC_USER', /required/);
  refuses(t, { AUTH_MODE: 'basic', AUTH_BASIC_USER: 'u' }, 'AUTH_BASIC_PASSWORD', /AUTH_BASIC_PASSWORD_HASH/);
  refuses(
    t,
    { AUTH_MODE: 'basic', AUTH_BASIC_USER: 'u', AUTH_BASIC_PASSWORD_HASH: 'plain' },
    'AUTH_BASIC_PASSWORD_HASH',
    /bcrypt/,
  );
});

t.test('oidc without issuer or client id refuses to start', async (t) => {
  refuses(t, { AUTH_MODE: 'oidc', AUTH_OIDC_CLIENT_ID: 'cp' }, 'AUTH_OIDC_ISSUER_URL', /required/);
  refuses(t, { AUTH_MODE: 'oidc', AUTH_OIDC_ISSUER_URL: 'https://id.example' }, 'AUTH_OIDC_CLIENT_ID', /required/);
});

t.test('an unknown role name refuses to start', async (t) => {
  refuses(
    t,
    { AUTH_MODE: 'basic', ...BASIC_USER, AUTH_BASIC_ROLE: 'superuser' },
    'AUTH_BASIC_ROLE',
    /unknown role "superuser"/,
  );
  refuses(
    t,
    {
      AUTH_MODE: 'oidc',
      AUTH_OIDC_ISSUER_URL: 'https://id.example',
      AUTH_OIDC_CLIENT_ID: 'cp',
      AUTH_OIDC_ROLE_MAPPING: 'ops=operator,boss=root',
    },
    'AUTH_OIDC_ROLE_MAPPING',
    /unknown role "root"/,
  );
});

t.test('a roles file with an unknown inherited role, an unknown verb or a cycle refuses to start', async (t) => {
  refuses(
    t,
    { RBAC_ROLES_FILE: rolesFile('roles:\n  a:\n    inherits: [ghost]\n') },
    'RBAC_ROLES_FILE',
    /inherits unknown role "ghost"/,
  );
  refuses(
    t,
    { RBAC_ROLES_FILE: rolesFile('roles:\n  a:\n    permissions: [{resource: gameservers, verbs: [destroy]}]\n') },
    'RBAC_ROLES_FILE',
    /unknown verb "destroy"/,
  );
  refuses(
    t,
    { RBAC_ROLES_FILE: rolesFile('roles:\n  a:\n    inherits: [b]\n  b:\n    inherits: [a]\n') },
    'RBAC_ROLES_FILE',
    /cycle: a -> b -> a/,
  );
});

t.test('a custom role from the roles file can be mapped to', async (t) => {
  const config = load({
    AUTH_MODE: 'basic',
    ...BASIC_USER,
    AUTH_BASIC_ROLE: 'games-ops',
    RBAC_ROLES_FILE: rolesFile(
      'roles:\n  games-ops:\n    inherits: [viewer]\n' +
        '    permissions: [{resource: gameservers, verbs: [execute], namespaces: [games]}]\n',
    ),
  });
  t.equal(config.basic?.role, 'games-ops');
});

t.test(
  'Kubernetes calls are bounded: 10 s per call and 60 s per watch unless configured, and nonsense refuses to start',
  async (t) => {
    t.same(load({}).kube, { requestTimeoutMs: 10_000, watchTimeoutMs: 60_000 });
    t.same(load({ KUBE_REQUEST_TIMEOUT: '2500ms', KUBE_WATCH_TIMEOUT: '5m' }).kube, {
      requestTimeoutMs: 2500,
      watchTimeoutMs: 300_000,
    });
    refuses(t, { KUBE_REQUEST_TIMEOUT: 'soon' }, 'KUBE_REQUEST_TIMEOUT', /must be a duration/);
    refuses(t, { KUBE_REQUEST_TIMEOUT: '10ms' }, 'KUBE_REQUEST_TIMEOUT', /at least 100 ms/);
    refuses(t, { KUBE_WATCH_TIMEOUT: '500ms' }, 'KUBE_WATCH_TIMEOUT', /at least 1000 ms/);
  },
);

t.test('clients get 10 s for their headers and 30 s for their request unless configured', async (t) => {
  t.same(load({}).http, { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 72_000 });
  t.same(load({ HTTP_HEADERS_TIMEOUT: '2s', HTTP_REQUEST_TIMEOUT: '1m', HTTP_KEEP_ALIVE_TIMEOUT: '5s' }).http, {
    headersTimeoutMs: 2000,
    requestTimeoutMs: 60_000,
    keepAliveTimeoutMs: 5000,
  });
  refuses(t, { HTTP_HEADERS_TIMEOUT: 'never' }, 'HTTP_HEADERS_TIMEOUT', /must be a duration/);
  refuses(t, { HTTP_REQUEST_TIMEOUT: '0' }, 'HTTP_REQUEST_TIMEOUT', /at least/);
});

t.test('an API key lifetime beyond 36500 days refuses to start', async (t) => {
  t.equal(load({ APIKEY_MAX_TTL: '36500d' }).apikeyMaxTtlMs, 36_500 * 86_400_000);
  refuses(t, { APIKEY_MAX_TTL: '36501d' }, 'APIKEY_MAX_TTL', /at most 36500d/);
  refuses(t, { APIKEY_MAX_TTL: '100000000d' }, 'APIKEY_MAX_TTL', /at most 36500d/);
});

const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));

function startServer(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('AUTH_') && k !== 'KUBECONFIG' && k !== 'KUBERNETES_SERVICE_HOST',
    ),
  );
  return new Promise((resolve) => {
    const child = spawn(process.execPath, nodeEntry(server), {
      env: { ...clean, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

t.test('the server refuses to start without KUBECONFIG outside a cluster, saying so', async (t) => {
  const { code, stderr } = await startServer({ AUTH_MODE: 'apikey' });
  t.equal(code, 1);
  t.match(
    stderr,
    /control-plane: invalid configuration: KUBECONFIG: is unset and this is not running in a Kubernetes pod/,
  );
});

t.test('KUBECONFIG set but empty is unset, as kubectl takes it', async (t) => {
  t.equal(load({ KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '10.0.0.1' }).kubeconfig, undefined, 'in a pod: in-cluster');
  refuses(t, { KUBECONFIG: ' ' }, 'KUBECONFIG', /is unset and this is not running in a Kubernetes pod/);
});

t.test('audit lines go to standard output unless AUDIT_LOG_FILE names a file; set but empty is unset', async (t) => {
  t.equal(load({}).auditLogFile, undefined);
  t.equal(load({ AUDIT_LOG_FILE: '' }).auditLogFile, undefined);
  t.equal(load({ AUDIT_LOG_FILE: '/var/log/gsp/audit.log' }).auditLogFile, '/var/log/gsp/audit.log');
});

t.test('console tickets live 30 s unless CONSOLE_TICKET_TTL says otherwise, at most 5 minutes', async (t) => {
  t.equal(load({}).consoleTicketTtlMs, 30_000);
  t.equal(load({ CONSOLE_TICKET_TTL: '10s' }).consoleTicketTtlMs, 10_000);
  refuses(t, { CONSOLE_TICKET_TTL: '10m' }, 'CONSOLE_TICKET_TTL', /at most 5m/);
  refuses(t, { CONSOLE_TICKET_TTL: '50ms' }, 'CONSOLE_TICKET_TTL', /at least 100 ms/);
  refuses(t, { CONSOLE_TICKET_TTL: 'soon' }, 'CONSOLE_TICKET_TTL', /duration/);
});
