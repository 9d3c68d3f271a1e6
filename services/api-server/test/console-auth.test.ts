import t from 'tap';
import { hash } from 'node:crypto';
import pg from 'pg';
import { bearer, PLATFORM_ADMIN, putMember } from './helper.js';
import { Browser } from '@gsp/test-kit/oidc';
import { ID_TOKEN_TTL_SECONDS, signIn, startConsoleStack } from './console-auth-stack.js';

/*
 * The console's sign-in (the API server as backend-for-frontend), over real HTTP with a real
 * OpenID provider: two API-server replicas share one schema behind a front at CONSOLE_PUBLIC_URL.
 */
const stack = await startConsoleStack(t);
const { front, issuer, publicUrl } = stack;
const alice = `${issuer}#alice`;
const db = new pg.Pool({ connectionString: stack.databaseUrl, max: 1 });
t.teardown(() => db.end());
const apiAdmin = await bearer(PLATFORM_ADMIN);
/** Puts `subject` into `org` with `role`, as the platform admin's bearer token (an OIDC subject, URL-encoded). */
async function member(org: string, subject: string, role: string): Promise<void> {
  const res = await putMember(stack.replicas[0]!.app, org, encodeURIComponent(subject), role, apiAdmin);
  if (res.statusCode !== 200) throw new Error(`member ${subject}: ${res.statusCode} ${res.body}`);
}
await member('dev', alice, 'admin');

/** A request the console's page would send: the cookie, its header, its origin. */
const fromConsole = (
  browser: Browser,
  method: string,
  path: string,
  body?: unknown,
  extra: Record<string, string> = {},
) =>
  browser.fetch(`${front}${path}`, {
    method,
    headers: {
      'x-gsp-console': '1',
      origin: new URL(publicUrl).origin,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...extra,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

async function signedIn(login: string): Promise<Browser> {
  const browser = new Browser();
  const { response } = await signIn(browser, stack, login);
  if (response.status !== 303) throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  return browser;
}

t.test(
  'signing in through the provider sets an HttpOnly, SameSite=Strict cookie and returns to the console',
  async (t) => {
    const browser = new Browser();
    const before = Date.now();
    const { response } = await signIn(browser, stack, 'alice', {
      start: `${publicUrl}auth/login?returnTo=/console/tenants/dev`,
    });
    t.equal(response.status, 303);
    t.equal(response.headers.get('location'), `${publicUrl}tenants/dev`, 'back to the page the sign-in started from');
    const session = browser.setCookies.find((c) => c.value.startsWith('gsp_session='))?.value ?? '';
    t.match(session, /; HttpOnly/, 'no script of the page can read it');
    t.match(session, /; SameSite=Strict/);
    t.match(session, /; Path=\/;/, "the console's folder and the API beside it");
    t.notMatch(session, /Secure/, 'not Secure: CONSOLE_PUBLIC_URL is http here');
    const maxAge = Number(/Max-Age=(\d+)/.exec(session)?.[1]);
    t.ok(maxAge > ID_TOKEN_TTL_SECONDS - 30 && maxAge <= ID_TOKEN_TTL_SECONDS, `ends with the ID token (${maxAge} s)`);

    const res = await browser.fetch(`${front}/console/auth/session`);
    const body = (await res.json()) as { signedIn: boolean; subject: string; expiresAt: string };
    t.equal(body.signedIn, true);
    t.equal(body.subject, alice, 'named as bearer tokens name OIDC subjects');
    const expiresAt = Date.parse(body.expiresAt);
    t.ok(
      expiresAt >= before + (ID_TOKEN_TTL_SECONDS - 2) * 1000 && expiresAt <= Date.now() + ID_TOKEN_TTL_SECONDS * 1000,
    );
    t.notMatch(JSON.stringify(body), /eyJ/, 'no token in the answer');

    const me = await browser.fetch(`${front}/api/v1/me`);
    t.equal(me.status, 200, 'the API answers the cookie');
    t.equal(((await me.json()) as { subject: string }).subject, alice);
  },
);

t.test('a cross-site form post with the session cookie gets 403; the console itself may write', async (t) => {
  const browser = await signedIn('alice');
  const forged = await browser.fetch(`${front}/api/v1/tenants/dev/clusters`, {
    method: 'POST',
    headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
    body: 'name=planted',
  });
  t.equal(forged.status, 403);
  t.match(((await forged.json()) as { detail: string }).detail, /X-GSP-Console: 1/, 'the refusal names the rule');

  const foreign = await fromConsole(
    browser,
    'POST',
    '/api/v1/tenants/dev/clusters',
    { name: 'planted' },
    {
      origin: 'https://evil.example',
    },
  );
  t.equal(foreign.status, 403);
  t.match(((await foreign.json()) as { detail: string }).detail, /console's origin/);

  const listed = await browser.fetch(`${front}/api/v1/tenants/dev/clusters`);
  t.notOk(JSON.stringify(await listed.json()).includes('planted'), 'nothing was created');

  const real = await fromConsole(browser, 'POST', '/api/v1/tenants/dev/clusters', { name: 'from-console' });
  t.equal(real.status, 201, 'with the header and its own origin the console registers a cluster');
});

t.test('signing out on one replica ends the session on the other', async (t) => {
  const browser = await signedIn('alice');
  const [a, b] = stack.replicas;
  const cookie = browser.cookieHeader(`${front}/api/v1/me`);
  const atB = (path: string) => fetch(`${b!.url}${path}`, { headers: { cookie } });
  t.equal((await atB('/api/v1/me')).status, 200, 'replica B serves the session replica A started');

  const out = await fetch(`${a!.url}/console/auth/logout`, {
    method: 'POST',
    headers: { 'x-gsp-console': '1', cookie },
  });
  t.equal(out.status, 204);
  t.match(out.headers.get('set-cookie') ?? '', /^gsp_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0/);

  const res = await atB('/api/v1/me');
  t.equal(res.status, 401, 'replica B refuses the old cookie at once');
  t.match(((await res.json()) as { detail: string }).detail, /session has ended/);
  const session = await atB('/console/auth/session');
  t.same(await session.json(), { signedIn: false });
});

t.test("a session ends at its ID token's expiry", async (t) => {
  const browser = await signedIn('alice');
  t.equal((await browser.fetch(`${front}/api/v1/me`)).status, 200);
  // The session row carries the ID token's exp (checked above to be the provider's ID-token TTL);
  // the database clock passing it is what this moves, rather than waiting 1234 s.
  const id = browser.cookie(front, 'gsp_session') ?? '';
  await db.query(`UPDATE console_sessions SET expires_at = now() - interval '1 second' WHERE id_hash = $1`, [
    hash('sha256', id, 'base64url'),
  ]);
  const res = await browser.fetch(`${front}/api/v1/me`);
  t.equal(res.status, 401);
  t.same(await (await browser.fetch(`${front}/console/auth/session`)).json(), { signedIn: false });
});

t.test('a member removed from a tenant loses that tenant on the next cookie request', async (t) => {
  const bob = `${issuer}#bob`;
  await member('dev', bob, 'viewer');
  const browser = await signedIn('bob');
  t.equal((await browser.fetch(`${front}/api/v1/tenants/dev/clusters`)).status, 200);
  const removed = await stack.replicas[0]!.app.inject({
    method: 'DELETE',
    url: `/api/v1/tenants/dev/members/${encodeURIComponent(bob)}`,
    headers: apiAdmin,
  });
  t.equal(removed.statusCode, 204);
  t.equal((await browser.fetch(`${front}/api/v1/tenants/dev/clusters`)).status, 403, 'on the very next request');
});

t.test('switching CLI access off platform-wide from the console needs the typed confirmation', async (t) => {
  const root = await signedIn('root');
  const url = '/api/v1/platform/feature-flags/cli_access.enabled';
  const refused = await fromConsole(root, 'PUT', url, { value: false, reason: 'incident 42' });
  t.equal(refused.status, 403);
  t.match(((await refused.json()) as { detail: string }).detail, /X-GSP-Confirm: default/, 'names the confirmation');
  const wrong = await fromConsole(root, 'PUT', url, { value: false }, { 'x-gsp-confirm': 'other' });
  t.equal(wrong.status, 403);
  const stored = await stack.replicas[0]!.app.inject({
    method: 'GET',
    url: '/api/v1/platform/feature-flags',
    headers: apiAdmin,
  });
  t.equal(
    stored.json<{ flags: { platformDefault: boolean | null }[] }>().flags[0]!.platformDefault,
    null,
    'nothing stored',
  );

  const on = await fromConsole(root, 'PUT', url, { value: true });
  t.equal(on.status, 200, 'switching on needs no confirmation');
  const confirmed = await fromConsole(
    root,
    'PUT',
    url,
    { value: false, reason: 'incident 42' },
    { 'x-gsp-confirm': 'default' },
  );
  t.equal(confirmed.status, 200);
  t.equal(((await confirmed.json()) as { effective: boolean }).effective, false);

  const cleared = await fromConsole(root, 'DELETE', url);
  t.equal(cleared.status, 200);
  const viaBearer = await stack.replicas[0]!.app.inject({
    method: 'PUT',
    url,
    headers: apiAdmin,
    payload: { value: false },
  });
  t.equal(viaBearer.statusCode, 200, 'a bearer-token call is as the specification says: no confirmation');
  await stack.replicas[0]!.app.inject({ method: 'DELETE', url, headers: apiAdmin });
});

t.test("the confirmation's blast radius: clusters without an override, tunnels open now", async (t) => {
  const root = await signedIn('root');
  const app = stack.replicas[0]!.app;
  const impact = async () => {
    const res = await root.fetch(`${front}/api/v1/platform/feature-flags/cli_access.enabled/impact`);
    t.equal(res.status, 200);
    return res.json();
  };
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM clusters');
  const clusters = rows[0]!.n;
  const one = await app.inject({
    method: 'POST',
    url: '/api/v1/tenants/dev/clusters',
    headers: apiAdmin,
    payload: { name: 'impact-a' },
  });
  await app.inject({
    method: 'POST',
    url: '/api/v1/tenants/dev/clusters',
    headers: apiAdmin,
    payload: { name: 'impact-b' },
  });
  t.same(await impact(), { platformId: 'default', clustersAffected: clusters + 2, tunnelsOpen: 0 });
  const id = one.json<{ id: string }>().id;
  const override = await app.inject({
    method: 'PUT',
    url: `/api/v1/tenants/dev/clusters/${id}/feature-flags/cli_access.enabled`,
    headers: apiAdmin,
    payload: { value: true },
  });
  t.equal(override.statusCode, 200);
  await db.query(
    `INSERT INTO agent_tunnels (tunnel_id, cluster_id, proxy_id, lease_expires_at)
     VALUES ('t1', $1, 'p1', now() + interval '1 minute'), ('t2', $1, 'p1', now() - interval '1 second')`,
    [id],
  );
  t.same(
    await impact(),
    { platformId: 'default', clustersAffected: clusters + 1, tunnelsOpen: 1 },
    'a lapsed lease is not an open tunnel',
  );

  const alice = await signedIn('alice');
  const res = await alice.fetch(`${front}/api/v1/platform/feature-flags/cli_access.enabled/impact`);
  t.equal(res.status, 403, 'platform admins only');
});

t.test('the event stream accepts the session cookie (EventSource sends cookies, not headers)', async (t) => {
  const browser = await signedIn('alice');
  const controller = new AbortController();
  const res = await browser.fetch(`${front}/api/v1/events`, { signal: controller.signal });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  controller.abort();
  await res.body?.cancel().catch(() => undefined);
});

t.test("the provider's refusal is a 401, a sign-in from another browser a 400, never a 500", async (t) => {
  const denied = await signIn(new Browser(), stack, 'alice', { deny: true });
  t.equal(denied.response.status, 401);
  t.match(((await denied.response.json()) as { detail: string }).detail, /refused the sign-in: access_denied/);

  // A callback URL carried to another browser (login CSRF): its state is not this browser's.
  const started = new Browser();
  const login = await started.fetch(`${publicUrl}auth/login`);
  const state = new URL(login.headers.get('location') ?? '').searchParams.get('state');
  const other = await new Browser().fetch(`${publicUrl}auth/callback?code=x&state=${state}`);
  t.equal(other.status, 400);
  t.match(((await other.json()) as { detail: string }).detail, /not started in this browser/);

  const replay = await started.fetch(`${publicUrl}auth/callback?code=x&state=${state}`);
  t.equal(replay.status, 401, 'its own browser gets as far as the provider, which refuses the made-up code');
  const again = await started.fetch(`${publicUrl}auth/callback?code=x&state=${state}`, {
    headers: { cookie: `gsp_login=${state}` },
  });
  t.equal(again.status, 400, 'a sign-in is taken once');
});

t.test('a browser is told in a sentence why signing in failed, with a link to start again', async (t) => {
  const browser = new Browser();
  const started = await browser.fetch(`${publicUrl}auth/login`);
  const state = new URL(started.headers.get('location') ?? '').searchParams.get('state') ?? '';
  const res = await browser.fetch(
    `${publicUrl}auth/callback?error=access_denied&state=${state}&iss=${encodeURIComponent(issuer)}`,
    {
      headers: { accept: 'text/html,application/xhtml+xml' },
    },
  );
  t.equal(res.status, 401);
  t.match(res.headers.get('content-type') ?? '', /^text\/html/);
  t.equal(res.headers.get('content-security-policy')?.startsWith("default-src 'none'"), true);
  const html = await res.text();
  t.match(html, /<p>The identity provider refused the sign-in: access_denied\.<\/p>/);
  t.match(html, new RegExp(`<a href="${publicUrl}auth/login">Sign in again</a>`));

  const stale = await new Browser().fetch(`${publicUrl}auth/callback?code=x&state=${state}`, {
    headers: { accept: 'text/html' },
  });
  t.equal(stale.status, 400);
  t.match(await stale.text(), /This sign-in was not started in this browser/);
});

t.test('returnTo is limited to the console', async (t) => {
  for (const bad of [
    '//evil.example/console/',
    'https://evil.example/console/',
    '/api/v1/me',
    '/console/../api/v1/me',
  ]) {
    const res = await new Browser().fetch(`${publicUrl}auth/login?returnTo=${encodeURIComponent(bad)}`);
    t.equal(res.status, 400, bad);
  }
  const ok = await new Browser().fetch(
    `${publicUrl}auth/login?returnTo=${encodeURIComponent('/console/tenants/dev?x=1')}`,
  );
  t.equal(ok.status, 303);
  t.ok(ok.headers.get('location')?.startsWith(`${issuer}/`), 'to the identity provider');
});

t.test('without a bearer token or a session cookie the API still answers 401 as before', async (t) => {
  const res = await fetch(`${front}/api/v1/me`);
  t.equal(res.status, 401);
  t.equal(res.headers.get('www-authenticate'), 'Bearer realm="gsp-api"');
  const withBearer = await fetch(`${front}/api/v1/me`, { method: 'GET', headers: apiAdmin });
  t.equal(withBearer.status, 200);
  const bearerWrite = await fetch(`${front}/api/v1/tenants/dev/clusters`, {
    method: 'POST',
    headers: { ...apiAdmin, 'content-type': 'application/json', origin: 'https://elsewhere.example' },
    body: JSON.stringify({ name: 'by-bearer' }),
  });
  t.equal(bearerWrite.status, 201, 'a bearer-token write needs neither the console header nor its origin');
});
