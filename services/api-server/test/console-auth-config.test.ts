import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ConfigError } from '@gsp/service-kit';
import { readConsoleAuthConfig } from '../src/config/console-auth.js';
import { cookieValue, setCookie } from '../src/console-bff/cookies.js';
import { build } from './helper.js';

const full = {
  AUTH_OIDC_ISSUER_URL: 'https://idp.example',
  CONSOLE_OIDC_CLIENT_ID: 'gsp-console',
  CONSOLE_OIDC_CLIENT_SECRET: 's3cret',
  CONSOLE_PUBLIC_URL: 'https://platform.example/console/',
};

t.test('the console sign-in is all or none of its three variables', async (t) => {
  t.equal(readConsoleAuthConfig({}), undefined, 'unset: no sign-in');
  for (const name of ['CONSOLE_OIDC_CLIENT_ID', 'CONSOLE_OIDC_CLIENT_SECRET', 'CONSOLE_PUBLIC_URL'] as const) {
    const env = { ...full, [name]: undefined };
    t.throws(() => readConsoleAuthConfig(env), { name: 'ConfigError', variable: name }, `${name} missing`);
  }
  t.throws(
    () => readConsoleAuthConfig({ ...full, AUTH_OIDC_ISSUER_URL: undefined }),
    { name: 'ConfigError', variable: 'AUTH_OIDC_ISSUER_URL' },
    'the console signs in at the issuer bearer tokens come from',
  );
  t.throws(() => readConsoleAuthConfig({ ...full, CONSOLE_PUBLIC_URL: 'ftp://x/' }), {
    name: 'ConfigError',
    variable: 'CONSOLE_PUBLIC_URL',
  });
  t.throws(() => readConsoleAuthConfig({ ...full, CONSOLE_PUBLIC_URL: 'https://x/console/?a=1' }), {
    name: 'ConfigError',
    variable: 'CONSOLE_PUBLIC_URL',
  });
});

t.test('every URL and cookie scope is derived from CONSOLE_PUBLIC_URL', async (t) => {
  const config = readConsoleAuthConfig(full)!;
  t.equal(config.redirectUri, 'https://platform.example/console/auth/callback');
  t.equal(config.origin, 'https://platform.example');
  t.equal(config.cookiePath, '/', 'the API at /api/v1 receives the cookie too');
  t.equal(config.secureCookies, true, 'https: Secure cookies');
  const prefixed = readConsoleAuthConfig({ ...full, CONSOLE_PUBLIC_URL: 'http://lb.example:8080/gsp/console' })!;
  t.equal(prefixed.publicUrl, 'http://lb.example:8080/gsp/console/');
  t.equal(prefixed.redirectUri, 'http://lb.example:8080/gsp/console/auth/callback');
  t.equal(prefixed.cookiePath, '/gsp/', 'behind a path prefix, the cookie stays under it');
  t.equal(prefixed.loginCookiePath, '/gsp/console/auth/');
  t.equal(prefixed.secureCookies, false);
});

t.test('the client secret may come from a file (CONSOLE_OIDC_CLIENT_SECRET_FILE)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'console-secret-'));
  writeFileSync(join(dir, 'secret'), 'from-a-file\n');
  const env = { ...full, CONSOLE_OIDC_CLIENT_SECRET: undefined, CONSOLE_OIDC_CLIENT_SECRET_FILE: join(dir, 'secret') };
  t.equal(readConsoleAuthConfig(env)?.clientSecret, 'from-a-file');
  t.throws(() => readConsoleAuthConfig({ ...env, CONSOLE_OIDC_CLIENT_SECRET: 'both' }), ConfigError);
});

t.test('cookies are HttpOnly and Secure behind TLS, the session Strict', async (t) => {
  const { app } = await build(t, {
    AUTH_OIDC_ISSUER_URL: 'https://127.0.0.1:1',
    AUTH_OIDC_AUDIENCE: 'gsp-api',
    CONSOLE_OIDC_CLIENT_ID: 'gsp-console',
    CONSOLE_OIDC_CLIENT_SECRET: 's3cret',
    CONSOLE_PUBLIC_URL: 'https://platform.example/console/',
  });
  const out = await app.inject({ method: 'POST', url: '/console/auth/logout' });
  t.equal(out.statusCode, 204);
  t.equal(out.headers['set-cookie'], 'gsp_session=; Path=/; HttpOnly; SameSite=Strict; Secure; Max-Age=0');
  const login = await app.inject({ method: 'GET', url: '/console/auth/login' });
  t.equal(login.statusCode, 503, 'an identity provider out of reach is a 503, not a 500');
  t.equal(login.headers['content-type'], 'application/problem+json; charset=utf-8');
});

t.test('cookieValue finds the named cookie and nothing else (property)', async () => {
  const name = fc.stringMatching(/^[a-z_]{1,8}$/);
  const value = fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/);
  fc.assert(
    fc.property(fc.array(fc.tuple(name, value), { maxLength: 6 }), name, (pairs, wanted) => {
      const header = pairs.map(([k, v]) => `${k}=${v}`).join('; ');
      const expected = pairs.find(([k]) => k === wanted)?.[1];
      if (cookieValue(header, wanted) !== expected) throw new Error(`${header} / ${wanted}`);
    }),
  );
});

t.test('setCookie writes the attributes asked for', async (t) => {
  t.equal(
    setCookie('gsp_login', 'abc', { path: '/console/auth/', secure: false, sameSite: 'Lax', maxAgeSeconds: 600 }),
    'gsp_login=abc; Path=/console/auth/; HttpOnly; SameSite=Lax; Max-Age=600',
  );
});
