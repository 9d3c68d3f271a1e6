import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { BROWSER_APP_CSP } from '@gsp/service-kit/browser-app';
import { NOT_BUILT_MESSAGE } from '../../src/panel/static.js';
import { BASIC_ADMIN, build, startKube } from '../helper.js';

const kube = await startKube(t);

/** A built panel as Vite leaves it: index.html and hashed assets. */
function fakeDist(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cp-panel-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><title>GSP panel</title><script type="module" src="./assets/index-abc123.js"></script>',
  );
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("panel")');
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

function securedLikeTheConsole(t: Test, headers: Record<string, unknown>): void {
  t.equal(headers['content-security-policy'], BROWSER_APP_CSP);
  t.equal(headers['x-content-type-options'], 'nosniff');
  t.equal(headers['referrer-policy'], 'same-origin');
  t.equal(headers['cross-origin-opener-policy'], 'same-origin');
}

t.test('the built panel is served under /panel/ with the CSP, and cached by what each file is', async (t) => {
  const { app, audit } = await build(t, kube, { PANEL_DIST_DIR: fakeDist() });
  const page = await app.inject('/panel/');
  t.equal(page.statusCode, 200);
  t.match(page.headers['content-type'], /text\/html/);
  t.match(page.body, /GSP panel/);
  t.equal(page.headers['cache-control'], 'no-store');
  securedLikeTheConsole(t, page.headers);

  const asset = await app.inject('/panel/assets/index-abc123.js');
  t.equal(asset.statusCode, 200);
  t.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
  securedLikeTheConsole(t, asset.headers);
  t.equal((await app.inject('/panel/favicon.svg')).headers['cache-control'], 'no-cache');

  const missing = await app.inject('/panel/nothing-here.js');
  t.equal(missing.statusCode, 404);
  securedLikeTheConsole(t, missing.headers);

  const bare = await app.inject('/panel');
  t.equal(bare.statusCode, 308);
  t.equal(bare.headers.location, 'panel/', 'relative, so it works behind a path prefix');
  t.same(audit.lines(), [], 'the static page is not audited');
});

t.test('an unbuilt panel answers 503 naming the build command', async (t) => {
  const { app } = await build(t, kube, { PANEL_DIST_DIR: mkdtempSync(join(tmpdir(), 'cp-panel-empty-')) });
  for (const url of ['/panel/', '/panel/assets/x.js']) {
    const res = await app.inject(url);
    t.equal(res.statusCode, 503, url);
    t.match(res.headers['content-type'], /application\/problem\+json/);
    t.equal(res.json().detail, NOT_BUILT_MESSAGE);
    t.match(res.json().detail, /npm run build -w packages\/gameserver-panel/);
    securedLikeTheConsole(t, res.headers);
  }
});

t.test('signed out, the session says so and which sign-in methods there are', async (t) => {
  const { app } = await build(t, kube);
  const res = await app.inject('/panel/auth/session');
  t.equal(res.statusCode, 200);
  t.equal(res.headers['cache-control'], 'no-store');
  securedLikeTheConsole(t, res.headers);
  t.same(res.json(), { signedIn: false, methods: { oidc: false, basic: true, apikey: true } });
});

t.test('a credential header signs the session in, with the role and what it grants', async (t) => {
  const { app } = await build(t, kube);
  const res = await app.inject({ url: '/panel/auth/session', headers: BASIC_ADMIN });
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.match(body, {
    signedIn: true,
    userId: 'root',
    username: 'root',
    role: 'admin',
    authMethod: 'basic',
    expiresAt: null,
  });
  t.same(body.methods, { oidc: false, basic: true, apikey: true });
  t.ok(
    body.permissions.some(
      (p: { resource: string; verb: string; namespaces: unknown }) =>
        p.resource === 'gameservers' && p.verb === 'create' && p.namespaces === '*',
    ),
  );
});

t.test('a viewer is told it may read but not act', async (t) => {
  const { app } = await build(t, kube, { AUTH_BASIC_ROLE: 'viewer' });
  const body = (await app.inject({ url: '/panel/auth/session', headers: BASIC_ADMIN })).json();
  t.equal(body.role, 'viewer');
  const pairs = body.permissions.map((p: { resource: string; verb: string }) => `${p.resource}:${p.verb}`);
  t.ok(pairs.includes('gameservers:list'));
  t.notOk(pairs.includes('gameservers:execute'));
});

t.test('a wrong credential header is refused, not taken as signed out', async (t) => {
  const { app } = await build(t, kube);
  const res = await app.inject({
    url: '/panel/auth/session',
    headers: { authorization: `Basic ${Buffer.from('root:wrong').toString('base64')}` },
  });
  t.equal(res.statusCode, 401);
  t.match(res.headers['content-type'], /application\/problem\+json/);
});

t.test('with AUTH_MODE=none everyone is the anonymous admin', async (t) => {
  const { app } = await build(t, kube, {
    AUTH_MODE: 'none',
    AUTH_BASIC_USER: undefined,
    AUTH_BASIC_PASSWORD: undefined,
  });
  const body = (await app.inject('/panel/auth/session')).json();
  t.match(body, {
    signedIn: true,
    userId: 'anonymous',
    role: 'admin',
    authMethod: 'none',
    methods: { oidc: false, basic: false, apikey: false },
  });
});
