/**
 * The console behind a TLS-terminating proxy that strips a path prefix, as an ingress would: the
 * browser speaks HTTPS to the proxy at `https://127.0.0.1:<port>/gsp/`, the proxy speaks plain
 * HTTP to the API server with X-Forwarded-For/-Proto/-Host, and the API server trusts it
 * (TRUST_PROXY names the loopback). Sign-in, cookies, live updates and sign-out all go through it.
 */
import t from 'tap';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateSelfSignedCertificate } from '@gsp/service-kit';
import { buildApp, loadConfig } from '@gsp/api-server';
import {
  bearer,
  CLIENT_ID,
  CLIENT_SECRET,
  freshSchema,
  JWT_SECRET,
  PLATFORM_ADMIN,
  startProvider,
} from '@gsp/api-server/testing';
import { assertBuilt, DIST_DIR, launchBrowser, openPage, pageProblems } from './browser.js';
import { signInAs } from './live-stack.js';

assertBuilt();
const PREFIX = '/gsp';
const FLAG_URL = '/api/v1/platform/feature-flags/cli_access.enabled';

/** The proxy: HTTPS in front, the prefix stripped, plain HTTP behind, the client's view forwarded. */
let upstream = '';
const certificate = generateSelfSignedCertificate('gsp-test-proxy');
const front = createHttpsServer(certificate, (req, res) => {
  const url = req.url ?? '/';
  if (!url.startsWith(`${PREFIX}/`)) {
    res.statusCode = 404;
    return res.end();
  }
  const target = new URL(`${upstream}${url.slice(PREFIX.length)}`);
  const forwarded = httpRequest(
    target,
    {
      method: req.method,
      headers: {
        ...req.headers,
        // As nginx's proxy_pass does: the upstream's own Host; the browser's travels in X-Forwarded-Host.
        host: target.host,
        'x-forwarded-for': req.socket.remoteAddress ?? '',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': req.headers.host ?? '',
        // As Traefik's StripPrefix does: the prefix it took off.
        'x-forwarded-prefix': PREFIX,
      },
    },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  forwarded.on('error', () => res.destroy());
  req.pipe(forwarded);
});
front.on('secureConnection', (socket) => t.teardown(() => socket.destroy()));
await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => front.close(() => resolve())));
const origin = `https://127.0.0.1:${(front.address() as AddressInfo).port}`;
const consoleUrl = `${origin}${PREFIX}/console/`;

const issuer = await startProvider(t, () => `${consoleUrl}auth/callback`);
const { url: databaseUrl } = await freshSchema(t);
const app = await buildApp(
  loadConfig({
    DATABASE_URL: databaseUrl,
    AUTH_JWT_SECRET: JWT_SECRET,
    AUTH_OIDC_ISSUER_URL: issuer,
    AUTH_OIDC_AUDIENCE: 'gsp-api',
    PLATFORM_ADMINS: `${PLATFORM_ADMIN},${issuer}#root`,
    CONSOLE_OIDC_CLIENT_ID: CLIENT_ID,
    CONSOLE_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    CONSOLE_PUBLIC_URL: consoleUrl,
    CONSOLE_DIST_DIR: DIST_DIR,
    TRUST_PROXY: '127.0.0.1',
  }),
  false,
);
t.teardown(() => app.close());
upstream = await app.listen({ port: 0, host: '127.0.0.1' });
const browser = await launchBrowser(t);

/** A POST through the proxy, trusting its certificate; the answer's status and JSON body. */
function postThroughProxy(path: string, body: unknown, headers: Record<string, string>) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const req = httpsRequest(
      `${origin}${PREFIX}${path}`,
      { method: 'POST', ca: certificate.cert, headers: { ...headers, 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

t.test('through the TLS proxy and its prefix, a user signs in, sees live updates and signs out', async (t) => {
  const opened = await openPage(t, browser, consoleUrl, { ignoreHTTPSErrors: true });
  const { page } = opened;
  await signInAs(page, 'alice');
  t.equal(page.url(), consoleUrl, 'back on the console at its https address, under the prefix');

  const session = (await page.context().cookies(consoleUrl)).find((c) => c.name === 'gsp_session');
  t.match(
    session,
    { secure: true, httpOnly: true, sameSite: 'Strict', path: `${PREFIX}/` },
    'the session cookie is Secure, HttpOnly, SameSite=Strict and scoped to the prefix',
  );

  await page.getByText('CLI access is on for the platform.').waitFor();
  const headers = await bearer(PLATFORM_ADMIN);
  const since = performance.now();
  const put = await app.inject({ method: 'PUT', url: FLAG_URL, headers, payload: { value: false, reason: 'tls' } });
  t.equal(put.statusCode, 200, 'the platform switched off by another admin');
  await page.getByText('CLI access is off for the platform.').waitFor({ timeout: 1000 });
  const ms = performance.now() - since;
  t.comment(`flag write to the page through the TLS proxy: ${ms.toFixed(0)} ms`);
  t.ok(ms < 1000, `the event stream works through the proxy: shown within 1 s (${ms.toFixed(0)} ms)`);
  t.equal((await app.inject({ method: 'DELETE', url: FLAG_URL, headers })).statusCode, 200);
  await page.getByText('CLI access is on for the platform.').waitFor({ timeout: 1000 });

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('link', { name: 'Sign in' }).waitFor();
  t.equal(await page.evaluate(async () => (await fetch('../api/v1/me')).status), 401, 'signed out on the server');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test(
  "an OFREP client behind the proxy is sent to the event stream at the proxy's https address and prefix",
  async (t) => {
    const res = await postThroughProxy(
      '/ofrep/v1/evaluate/flags',
      { context: { targetingKey: 'u-1' } },
      await bearer('anyone'),
    );
    t.equal(res.status, 200);
    t.match(res.body, { eventStreams: [{ type: 'sse', url: `${origin}${PREFIX}/ofrep/v1/events` }] });
  },
);
