import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { readConsoleStaticConfig } from '../src/config/console-static.js';
import { build } from './helper.js';

const ASSET = 'assets/index-Ab12Cd34.js';

/** A built console as Vite writes it: index.html and content-hashed assets. */
async function fakeDist(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gsp-console-dist-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), `<!doctype html><script type="module" src="./${ASSET}"></script>`);
  await writeFile(join(dir, ASSET), 'console.log("console");');
  return dir;
}

function directives(csp: string | undefined): Map<string, string> {
  return new Map((csp ?? '').split(';').map((d) => d.trim().split(/\s+(.*)/, 2) as [string, string]));
}

t.test('with a built console', async (t) => {
  const { app } = await build(t, { CONSOLE_DIST_DIR: await fakeDist() });

  t.test('the page loads without a token and is never cached', async (t) => {
    const res = await app.inject({ url: '/console/' });
    t.equal(res.statusCode, 200);
    t.match(res.headers['content-type'], /^text\/html/);
    t.match(res.body, ASSET);
    t.equal(res.headers['cache-control'], 'no-store');
  });

  t.test('the page carries a strict Content-Security-Policy and hardening headers', async (t) => {
    const res = await app.inject({ url: '/console/' });
    const csp = res.headers['content-security-policy'] as string | undefined;
    t.notMatch(csp, /unsafe-inline|unsafe-eval|\*/, 'no inline script or style, no wildcard');
    const d = directives(csp);
    t.equal(d.get('default-src'), "'none'");
    t.equal(d.get('script-src'), "'self'");
    t.equal(d.get('style-src'), "'self'");
    t.equal(d.get('connect-src'), "'self'");
    t.equal(d.get('frame-ancestors'), "'none'");
    t.equal(d.get('base-uri'), "'none'");
    t.equal(d.get('form-action'), "'self'");
    t.equal(res.headers['x-content-type-options'], 'nosniff');
    t.equal(res.headers['referrer-policy'], 'same-origin');
  });

  t.test('hashed assets are cached for a year', async (t) => {
    const res = await app.inject({ url: `/console/${ASSET}` });
    t.equal(res.statusCode, 200);
    t.match(res.headers['content-type'], /javascript/);
    t.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
  });

  t.test('/console redirects to /console/ relatively, so a path prefix is kept', async (t) => {
    const res = await app.inject({ url: '/console' });
    t.equal(res.statusCode, 308);
    t.equal(res.headers.location, 'console/');
  });

  t.test('a file that is not there is a 404 problem, and nothing outside the build is served', async (t) => {
    const missing = await app.inject({ url: '/console/assets/nope.js' });
    t.equal(missing.statusCode, 404);
    t.match(missing.headers['content-type'], /problem\+json/);
    for (const url of [
      '/console/%2e%2e/package.json',
      '/console/..%2fpackage.json',
      '/console/assets/%2e%2e/%2e%2e/x',
    ]) {
      const res = await app.inject({ url });
      t.not(res.statusCode, 200, url);
      t.notMatch(res.body, '"name"', url);
    }
  });

  t.test('the API still asks for a token', async (t) => {
    const res = await app.inject({ url: '/api/v1/me' });
    t.equal(res.statusCode, 401);
  });
});

t.test('without a built console the server starts and /console/ says how to build it', async (t) => {
  const { app } = await build(t, { CONSOLE_DIST_DIR: join(tmpdir(), 'gsp-console-never-built') });
  for (const url of ['/console/', '/console/index.html', `/console/${ASSET}`]) {
    const res = await app.inject({ url });
    t.equal(res.statusCode, 503, url);
    t.match(res.headers['content-type'], /problem\+json/, url);
    t.match(res.json().detail, 'npm run build -w packages/web-console', url);
  }
  t.equal((await app.inject({ url: '/healthz' })).statusCode, 200, 'the API answers');
});

t.test('CONSOLE_DIST_DIR defaults to the web console workspace dist and resolves a relative path', async (t) => {
  t.match(readConsoleStaticConfig({}).distDir, /packages[/\\]web-console[/\\]dist$/);
  t.equal(readConsoleStaticConfig({ CONSOLE_DIST_DIR: 'x/dist' }).distDir, join(process.cwd(), 'x/dist'));
});
