import t from 'tap';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import Fastify from 'fastify';
import {
  asSignInProblem,
  BROWSER_APP_CSP,
  cacheControlFor,
  createSignInClient,
  HASHED_ASSET_CACHE,
  ProviderUnavailable,
  returnTarget,
  secureBrowserPage,
  serveBuiltApp,
  SignInRefused,
} from '@gsp/service-kit/browser-app';

const base = 'https://platform.example/console/';

/** Whether `target` is a URL of the app at `base`: same origin, under its path. */
function insideApp(target: string): boolean {
  const url = new URL(target);
  return url.origin === 'https://platform.example' && url.pathname.startsWith('/console/');
}

t.test('returnTo never leads outside the app, whatever is asked (property)', async () => {
  const tricks = fc.constantFrom('//', '/\\', '\\', '/%2e%2e/', '/../', 'https:', 'javascript:', '\t', '\n', '@');
  const pieces = fc.array(fc.oneof(tricks, fc.string(), fc.webSegment()), { maxLength: 6 });
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.webUrl(),
        fc.webPath().map((p) => `/console${p}`),
        pieces.map((p) => p.join('')),
        pieces.map((p) => `/console/${p.join('')}`),
      ),
      (raw) => {
        const target = returnTarget(raw, base);
        if (target !== undefined && !insideApp(target)) throw new Error(`${JSON.stringify(raw)} -> ${target}`);
      },
    ),
  );
});

t.test('a protocol-relative or backslash returnTo is refused, even under the app path (property)', async () => {
  const prefix = fc.constantFrom('//', '/\\', '\\', '/console/\\', '/console\\');
  fc.assert(
    fc.property(prefix, fc.webSegment(), (start, rest) => {
      if (returnTarget(`${start}${rest}`, base) !== undefined) throw new Error(`${start}${rest} was accepted`);
    }),
  );
});

t.test('a path of the app is kept; none is the app root; a path climbing out is refused', async (t) => {
  t.equal(returnTarget(undefined, base), base);
  t.equal(returnTarget('', base), base);
  t.equal(returnTarget('/console/tenants?x=1#y', base), 'https://platform.example/console/tenants?x=1#y');
  t.equal(returnTarget('/console/../api/v1', base), undefined);
  t.equal(returnTarget('/api/v1', base), undefined);
  t.equal(returnTarget('https://evil.example/console/', base), undefined);
  t.equal(returnTarget('/console/\u0000', base), undefined);
});

t.test('HTML is never cached, hashed assets for good, anything else revalidated', async (t) => {
  t.equal(cacheControlFor('/srv/app/index.html'), 'no-store');
  t.equal(cacheControlFor('/srv/app/assets/index-3f2a.js'), HASHED_ASSET_CACHE);
  t.equal(cacheControlFor('C:\\app\\assets\\index-3f2a.css'), HASHED_ASSET_CACHE);
  t.equal(cacheControlFor('/srv/app/favicon.svg'), 'no-cache');
});

async function appAt(distDir: string | undefined) {
  const app = Fastify({ logger: false });
  app.addHook('onRequest', async (_request, reply) => secureBrowserPage(reply));
  app.setErrorHandler((err: Error, _request, reply) => reply.code(503).send({ detail: err.message }));
  await app.register(serveBuiltApp, { path: '/app/', distDir, notBuilt: () => new Error('not built: build it') });
  return app;
}

t.test('a built app is served with its headers and caching; the bare path redirects relatively', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'browser-app-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>app</title>');
  writeFileSync(join(dir, 'assets', 'main-1a2b.js'), 'export {};');
  const app = await appAt(dir);
  t.teardown(() => app.close());
  const page = await app.inject('/app/');
  t.equal(page.statusCode, 200);
  t.equal(page.headers['cache-control'], 'no-store');
  t.equal(page.headers['content-security-policy'], BROWSER_APP_CSP);
  t.equal(page.headers['x-content-type-options'], 'nosniff');
  const asset = await app.inject('/app/assets/main-1a2b.js');
  t.equal(asset.headers['cache-control'], HASHED_ASSET_CACHE);
  const bare = await app.inject('/app');
  t.equal(bare.statusCode, 308);
  t.equal(bare.headers.location, 'app/');
});

t.test('an app that is not built answers the given error on every path', async (t) => {
  const app = await appAt(join(tmpdir(), 'no-such-build-dir'));
  t.teardown(() => app.close());
  for (const url of ['/app/', '/app/assets/x.js']) {
    const res = await app.inject(url);
    t.equal(res.statusCode, 503, url);
    t.equal(res.json().detail, 'not built: build it');
  }
});

t.test('a path without both slashes fails at registration', async (t) => {
  const app = Fastify({ logger: false });
  t.teardown(() => app.close());
  app.register(serveBuiltApp, { path: 'app', distDir: undefined, notBuilt: () => new Error('x') });
  await t.rejects(async () => app.ready(), /path must be a path with both slashes: app/);
});

t.test('a provider out of reach is ProviderUnavailable, and discovery is tried again next time', async (t) => {
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
  const client = createSignInClient({
    issuerUrl: `http://127.0.0.1:${port}`,
    clientId: 'app',
    clientSecret: 'secret',
    redirectUri: 'http://127.0.0.1/app/auth/callback',
  });
  const login = { state: 's', nonce: 'n', codeVerifier: 'v'.repeat(43) };
  for (const attempt of [1, 2]) {
    const err = await client.authorizationUrl(login).catch((e: unknown) => e);
    t.type(err, ProviderUnavailable, `attempt ${attempt}`);
    t.match((err as Error).message, /^the identity provider's discovery failed: /);
  }
});

t.test('a failed sign-in step becomes a 401 or 503 of the service; anything else passes through', async (t) => {
  const problems = {
    refused: (message: string) => new RangeError(`401: ${message}`),
    unavailable: (message: string) => new SyntaxError(`503: ${message}`),
  };
  await t.rejects(asSignInProblem(Promise.reject(new SignInRefused('no')), problems), new RangeError('401: no'));
  await t.rejects(
    asSignInProblem(Promise.reject(new ProviderUnavailable('down')), problems),
    new SyntaxError('503: down'),
  );
  await t.rejects(asSignInProblem(Promise.reject(new TypeError('bug')), problems), new TypeError('bug'));
  t.equal(await asSignInProblem(Promise.resolve(7), problems), 7);
});
