import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { Test } from 'tap';
import { decodeJwt } from 'jose';
import { Browser } from '@gsp/test-kit/oidc';
import { createIssuer } from '../dev/issuer/app.js';
import type { DevUser } from '../dev/issuer/users.js';

const CLIENT_ID = 'gsp-console';
const CLIENT_SECRET = 'console-secret-for-this-test';
const REDIRECT_URI = 'http://127.0.0.1:9/console/auth/callback';
const USERS: DevUser[] = [
  {
    login: 'platform-admin',
    name: 'Platform Admin',
    role: 'platform admin',
    platformAdmin: true,
    password: 'right-password',
  },
  {
    login: 'tenant-viewer',
    name: 'Tenant Viewer',
    role: 'viewer',
    tenantRole: 'viewer',
    platformAdmin: false,
    password: 'viewer-pass',
  },
];

/** The issuer on a port of its own: its URL names the port, known once listening. */
async function startIssuer(): Promise<string> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const handler: { handle?: RequestListener } = {};
  const server = createServer((req, res) => handler.handle!(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.on('connection', (socket) => t.teardown(() => socket.destroy()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  handler.handle = createIssuer({
    issuer: url,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri: REDIRECT_URI,
    users: USERS,
    signingKey: { ...privateKey.export({ format: 'jwk' }), kid: 'test' },
    cookieKey: 'cookie-key-for-this-test',
  });
  return url;
}

const issuer = await startIssuer();

interface Started {
  browser: Browser;
  /** The login page's URL. */
  loginUrl: string;
  html: string;
  verifier: string;
  nonce: string;
}

/** The console's first step: to the authorization endpoint, then to the login page. */
async function startSignIn(t: Test, browser = new Browser()): Promise<Started> {
  const verifier = randomBytes(32).toString('base64url');
  const nonce = randomBytes(16).toString('base64url');
  const auth = new URL('/auth', issuer);
  auth.search = new URLSearchParams({
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid profile email',
    state: 'state-1',
    nonce,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const res = await browser.fetch(auth.href);
  t.equal(res.status, 303, 'the authorization endpoint sends the browser to log in');
  const loginUrl = new URL(res.headers.get('location')!, issuer).href;
  const page = await browser.fetch(loginUrl);
  return { browser, loginUrl, html: await page.text(), verifier, nonce };
}

async function submit(s: Started, login: string, password: string): Promise<Response> {
  return s.browser.fetch(`${s.loginUrl}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ login, password }).toString(),
  });
}

/** Follows the provider's redirects until one leaves it: the console's callback URL. */
async function followToCallback(s: Started, res: Response): Promise<URL> {
  for (let i = 0; i < 5; i++) {
    const location = new URL(res.headers.get('location') ?? '', issuer);
    if (location.origin !== issuer) return location;
    res = await s.browser.fetch(location.href);
  }
  throw new Error('the provider did not send the browser back to the console');
}

/** The console's code exchange at the token endpoint. */
async function exchange(callback: URL, s: Started): Promise<{ id_token: string; access_token: string }> {
  const token = await fetch(new URL('/token', issuer), {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: REDIRECT_URI,
      code_verifier: s.verifier,
    }).toString(),
  });
  if (token.status !== 200) throw new Error(`the token endpoint answered ${token.status}: ${await token.text()}`);
  return (await token.json()) as { id_token: string; access_token: string };
}

t.test('the login page is a labelled form without script, under a strict CSP', async (t) => {
  const s = await startSignIn(t);
  const res = await s.browser.fetch(s.loginUrl);
  t.equal(res.status, 200);
  const csp = res.headers.get('content-security-policy') ?? '';
  t.match(csp, /default-src 'none'/);
  t.notMatch(csp, /unsafe-inline/);
  t.match(s.html, /<label for="login">Username<\/label>\s*<input id="login" name="login"/);
  t.match(s.html, /<label for="password">Password<\/label>\s*<input id="password" name="password" type="password"/);
  t.notMatch(s.html, /<script|style="/i, 'no script, no style attribute');
});

t.test('a wrong password is refused with a sentence, and so is an unknown user', async (t) => {
  const s = await startSignIn(t);
  for (const [login, password] of [
    ['platform-admin', 'wrong-password'],
    ['nobody', 'right-password'],
    ['platform-admin', ''],
  ] as const) {
    const res = await submit(s, login, password);
    t.equal(res.status, 401, `${login}/${password || '(empty)'} is refused`);
    const html = await res.text();
    t.match(html, /role="alert">That username and password don&#39;t match a user of this issuer\./);
    t.match(html, new RegExp(`value="${login}"`), 'the username is kept in the form');
  }
  // The same interaction still signs in with the right password.
  const callback = await followToCallback(s, await submit(s, 'platform-admin', 'right-password'));
  t.ok(callback.searchParams.get('code'), 'then the right password signs in');
});

t.test('the right password signs in without a consent page, as the login it names', async (t) => {
  const s = await startSignIn(t);
  const callback = await followToCallback(s, await submit(s, 'tenant-viewer', 'viewer-pass'));
  t.equal(`${callback.origin}${callback.pathname}`, REDIRECT_URI, 'straight back to the console');
  t.equal(callback.searchParams.get('state'), 'state-1');
  const tokens = await exchange(callback, s);
  const claims = decodeJwt(tokens.id_token);
  t.match(claims, { iss: issuer, sub: 'tenant-viewer', aud: CLIENT_ID, nonce: s.nonce });
  t.ok(claims.exp! - claims.iat! >= 12 * 3600, 'the ID token lasts a working day');
  const userinfo = await fetch(new URL('/me', issuer), { headers: { authorization: `Bearer ${tokens.access_token}` } });
  t.same(await userinfo.json(), { sub: 'tenant-viewer', name: 'Tenant Viewer', preferred_username: 'tenant-viewer' });
});

t.test(
  'signed in once, the next sign-in in the same browser asks for a password again, and may be another user',
  async (t) => {
    const first = await startSignIn(t);
    await followToCallback(first, await submit(first, 'platform-admin', 'right-password'));
    const again = await startSignIn(t, first.browser);
    t.match(again.html, '<label for="password">Password</label>', 'the login page, not straight back to the console');
    const callback = await followToCallback(again, await submit(again, 'tenant-viewer', 'viewer-pass'));
    const token = await exchange(callback, again);
    t.equal(decodeJwt(token.id_token).sub, 'tenant-viewer', 'now the viewer');
  },
);

t.test('Cancel goes back to the console with access_denied', async (t) => {
  const s = await startSignIn(t);
  const res = await s.browser.fetch(`${s.loginUrl}/abort`, { method: 'POST' });
  const callback = await followToCallback(s, res);
  t.equal(callback.searchParams.get('error'), 'access_denied');
});

t.test('a login form without its interaction cookie says the sign-in expired', async (t) => {
  const s = await startSignIn(t);
  const res = await fetch(`${s.loginUrl}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'login=platform-admin&password=right-password',
  });
  t.equal(res.status, 400);
  t.match(await res.text(), 'This sign-in has expired or was opened in another browser.');
});
