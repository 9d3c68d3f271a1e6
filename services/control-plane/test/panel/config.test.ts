import t from 'tap';
import type { Test } from 'tap';
import { ConfigError, loadConfig } from '../../src/config/index.js';

const base = { KUBECONFIG: '/tmp/kubeconfig', AUTH_MODE: 'apikey' };
const OIDC = { AUTH_MODE: 'apikey,oidc', AUTH_OIDC_ISSUER_URL: 'https://id.example', AUTH_OIDC_CLIENT_ID: 'cp' };
const load = (env: Record<string, string | undefined>) =>
  loadConfig({ ...base, ...env }, { serviceAccountNamespaceFile: '/nonexistent' }).panel;

function refuses(t: Test, env: Record<string, string | undefined>, variable: string, message: RegExp): void {
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

t.test('by default: no public URL, cookies on /, 8-hour sessions, no OIDC sign-in', async (t) => {
  const panel = load({});
  t.equal(panel.publicUrl, undefined);
  t.equal(panel.cookiePath, '/');
  t.equal(panel.secureCookies, false);
  t.equal(panel.sessionTtlMs, 28_800_000);
  t.equal(panel.oidc, undefined);
});

t.test('PANEL_PUBLIC_URL sets the origin, the cookie path (the prefix before panel/) and Secure', async (t) => {
  const panel = load({ PANEL_PUBLIC_URL: 'https://games.example/ops/panel' });
  t.equal(panel.publicUrl, 'https://games.example/ops/panel/');
  t.equal(panel.origin, 'https://games.example');
  t.equal(panel.cookiePath, '/ops/');
  t.equal(panel.loginCookiePath, '/ops/panel/auth/');
  t.equal(panel.secureCookies, true);
  t.equal(load({ PANEL_PUBLIC_URL: 'http://127.0.0.1:8080/panel/' }).cookiePath, '/');
});

t.test('a PANEL_PUBLIC_URL that is not where /panel/ is, or carries a query, refuses to start', async (t) => {
  refuses(t, { PANEL_PUBLIC_URL: 'https://games.example/console/' }, 'PANEL_PUBLIC_URL', /ending in \/panel\//);
  refuses(t, { PANEL_PUBLIC_URL: 'https://games.example/panel/?x=1' }, 'PANEL_PUBLIC_URL', /query/);
  refuses(t, { PANEL_PUBLIC_URL: 'ftp://games.example/panel/' }, 'PANEL_PUBLIC_URL', /https: or http:/);
});

t.test('the panel OIDC client needs its secret, oidc on and a public URL', async (t) => {
  const url = { PANEL_PUBLIC_URL: 'https://games.example/panel/' };
  const panel = load({ ...OIDC, ...url, PANEL_OIDC_CLIENT_ID: 'panel', PANEL_OIDC_CLIENT_SECRET: 's3cret' });
  t.same(panel.oidc, {
    clientId: 'panel',
    clientSecret: 's3cret',
    redirectUri: 'https://games.example/panel/auth/callback',
  });
  refuses(t, { ...OIDC, ...url, PANEL_OIDC_CLIENT_ID: 'panel' }, 'PANEL_OIDC_CLIENT_SECRET', /both or neither/);
  refuses(t, { ...OIDC, ...url, PANEL_OIDC_CLIENT_SECRET: 's' }, 'PANEL_OIDC_CLIENT_ID', /both or neither/);
  refuses(t, { ...url, PANEL_OIDC_CLIENT_ID: 'p', PANEL_OIDC_CLIENT_SECRET: 's' }, 'PANEL_OIDC_CLIENT_ID', /oidc/);
  refuses(t, { ...OIDC, PANEL_OIDC_CLIENT_ID: 'p', PANEL_OIDC_CLIENT_SECRET: 's' }, 'PANEL_PUBLIC_URL', /callback/);
});

t.test('PANEL_SESSION_TTL_SECONDS is a positive whole number of at most 30 days', async (t) => {
  t.equal(load({ PANEL_SESSION_TTL_SECONDS: '600' }).sessionTtlMs, 600_000);
  refuses(t, { PANEL_SESSION_TTL_SECONDS: '0' }, 'PANEL_SESSION_TTL_SECONDS', /from 1 to 2592000/);
  refuses(t, { PANEL_SESSION_TTL_SECONDS: '8h' }, 'PANEL_SESSION_TTL_SECONDS', /whole number/);
});

t.test('PANEL_SIGN_IN_LIMIT is a positive whole number, 30 by default', async (t) => {
  t.equal(load({}).signInLimit, 30);
  t.equal(load({ PANEL_SIGN_IN_LIMIT: '200' }).signInLimit, 200);
  refuses(t, { PANEL_SIGN_IN_LIMIT: '0' }, 'PANEL_SIGN_IN_LIMIT', /positive integer/);
});

t.test('PANEL_DIST_DIR is resolved; unset, it is the dist/ of @gsp/gameserver-panel', async (t) => {
  t.equal(load({ PANEL_DIST_DIR: '/srv/panel' }).distDir, '/srv/panel');
  t.match(load({}).distDir, /packages\/gameserver-panel\/dist$/);
});
