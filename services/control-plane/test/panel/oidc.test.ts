/**
 * The panel's OIDC sign-in end to end over HTTP: the test OpenID provider (oidc-provider with its
 * development login and consent pages), the control plane listening, and a browser's cookie
 * handling with fetch.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { Browser, signIn as signInWith, startOidcProvider } from '@gsp/test-kit/oidc';
import { loadConfig } from '../../src/config/index.js';
import { buildApp } from '../../src/app.js';
import { AuditCapture, baseEnv, startKube } from '../helper.js';

const PANEL_CLIENT = 'gsp-panel';
const PANEL_SECRET = 'panel-secret-for-tests';
const ID_TOKEN_TTL_SECONDS = 1234;

const kube = await startKube(t);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The test provider, the panel its only client; its users' `roles` claim is in the ID token. */
async function startProvider(redirectUri: string): Promise<string> {
  const provider = await startOidcProvider(t, {
    clients: [{ id: PANEL_CLIENT, secret: PANEL_SECRET, redirectUri }],
    idTokenTtlSeconds: ID_TOKEN_TTL_SECONDS,
    claims: { openid: ['sub', 'roles'], profile: ['preferred_username'] },
    idTokenClaims: true,
    account: (sub) => ({ preferred_username: `${sub}@example`, roles: sub === 'alice' ? ['ops'] : [] }),
  });
  return provider.issuer;
}

/** Signs in as `login` from `start`; the first answer of the control plane that is no redirect to the provider. */
const signIn = async (browser: Browser, start: string, login: string): Promise<Response> =>
  (await signInWith(browser, { start, app: cp, issuer, login })).response;

const port = await freePort();
const cp = `http://127.0.0.1:${port}`;
const issuer = await startProvider(`${cp}/panel/auth/callback`);
const config = loadConfig(
  {
    ...baseEnv(kube),
    AUTH_MODE: 'apikey,basic,oidc',
    AUTH_OIDC_ISSUER_URL: issuer,
    AUTH_OIDC_CLIENT_ID: 'control-plane',
    AUTH_OIDC_ROLE_MAPPING: 'ops=operator',
    PANEL_OIDC_CLIENT_ID: PANEL_CLIENT,
    PANEL_OIDC_CLIENT_SECRET: PANEL_SECRET,
    PANEL_PUBLIC_URL: `${cp}/panel/`,
  },
  { serviceAccountNamespaceFile: '/nonexistent' },
);
const audit = new AuditCapture();
const app = await buildApp(config, { logger: false, auditStream: audit });
t.teardown(() => app.close());
await app.listen({ port, host: '127.0.0.1' });

t.test('the session route offers OIDC sign-in', async (t) => {
  const body = (await (await fetch(`${cp}/panel/auth/session`)).json()) as { methods: unknown };
  t.same(body.methods, { oidc: true, basic: true, apikey: true });
});

t.test(
  "signing in at the provider ends on the panel with a session that carries the ID token's role and end",
  async (t) => {
    const browser = new Browser();
    const started = Date.now();
    const login = await browser.fetch(`${cp}/panel/auth/login?returnTo=${encodeURIComponent('/panel/?from=test')}`);
    t.equal(login.status, 303);
    const to = new URL(login.headers.get('location') ?? '');
    t.equal(to.origin, issuer);
    t.equal(to.searchParams.get('code_challenge_method'), 'S256');
    t.ok(to.searchParams.get('state') && to.searchParams.get('nonce'), 'state and nonce');
    t.match(
      login.headers.get('set-cookie'),
      /^gsp_panel_login=[^;]+; Path=\/panel\/auth\/; HttpOnly; SameSite=Lax; Max-Age=600$/,
    );

    const done = await signIn(browser, to.href, 'alice');
    t.equal(done.status, 303);
    t.equal(done.headers.get('location'), `${cp}/panel/?from=test`);
    t.ok(browser.cookie(cp, 'gsp_panel'), 'the session cookie is set');
    t.equal(browser.cookie(cp, 'gsp_panel_login'), undefined, 'the sign-in cookie is deleted');

    const me = (await (await browser.fetch(`${cp}/api/v1/session`)).json()) as Record<string, unknown>;
    t.match(me, { userId: 'alice', username: 'alice@example', role: 'operator', authMethod: 'oidc' });
    const session = (await (await browser.fetch(`${cp}/panel/auth/session`)).json()) as { expiresAt: string };
    const ends = Date.parse(session.expiresAt) - started;
    t.ok(
      ends > (ID_TOKEN_TTL_SECONDS - 30) * 1000 && ends <= (ID_TOKEN_TTL_SECONDS + 5) * 1000,
      'it ends with the ID token',
    );
    t.match(
      audit.lines().find((l) => l.path === '/panel/auth/callback'),
      { user: 'alice@example', authMethod: 'oidc', status: 303 },
    );
  },
);

t.test('a user whose claims map to no role is signed in without one, and may do nothing', async (t) => {
  const browser = new Browser();
  const done = await signIn(browser, `${cp}/panel/auth/login`, 'bob');
  t.equal(done.headers.get('location'), `${cp}/panel/`);
  const session = (await (await browser.fetch(`${cp}/panel/auth/session`)).json()) as Record<string, unknown>;
  t.match(session, { signedIn: true, role: null, permissions: [] });
  t.equal((await browser.fetch(`${cp}/api/v1/gameservers`)).status, 403);
});

t.test('a callback this browser did not start, or used twice, is refused with a sentence', async (t) => {
  const browser = new Browser();
  const login = await browser.fetch(`${cp}/panel/auth/login`);
  const state = new URL(login.headers.get('location') ?? '').searchParams.get('state');
  const stranger = await fetch(`${cp}/panel/auth/callback?state=${state}&code=x`, { redirect: 'manual' });
  t.equal(stranger.status, 400);
  t.match(((await stranger.json()) as { detail: string }).detail, /not started in this browser/);
  const wrongCode = await browser.fetch(`${cp}/panel/auth/callback?state=${state}&code=x`);
  t.equal(wrongCode.status, 401, 'the provider refuses the made-up code');
  const again = await browser.fetch(`${cp}/panel/auth/callback?state=${state}&code=x`);
  t.equal(again.status, 400);
  t.match(((await again.json()) as { detail: string }).detail, /already used/);
});

t.test('returnTo must be a path of the panel', async (t) => {
  for (const returnTo of ['https://evil.example/', '//evil.example/', '/api/v1/apikeys', '/panel/../api']) {
    const res = await fetch(`${cp}/panel/auth/login?returnTo=${encodeURIComponent(returnTo)}`, { redirect: 'manual' });
    t.equal(res.status, 400, returnTo);
  }
});
