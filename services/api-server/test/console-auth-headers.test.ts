import t from 'tap';
import type { InjectOptions } from 'fastify';
import { startConsoleStack } from './console-auth-stack.js';

/*
 * Every answer under /console/ carries the browser-app headers, as the README says: the sign-in
 * routes and their errors as much as the built page.
 */
const stack = await startConsoleStack(t, { replicas: 1, env: { CONSOLE_SIGN_IN_LIMIT: '1' } });
const app = stack.replicas[0]!.app;
const html = { accept: 'text/html' };
const fromConsole = { origin: new URL(stack.publicUrl).origin, 'x-gsp-console': '1' };

const answers: [string, InjectOptions, number][] = [
  ['a sign-in start', { url: '/console/auth/login', remoteAddress: '10.40.0.1' }, 303],
  ['a sign-in start over the limit', { url: '/console/auth/login', remoteAddress: '10.40.0.1' }, 429],
  ['the same, to a browser', { url: '/console/auth/login', remoteAddress: '10.40.0.1', headers: html }, 429],
  ['a returnTo off the console', { url: '/console/auth/login?returnTo=https://evil.example/' }, 400],
  ['the same, to a browser', { url: '/console/auth/login?returnTo=//evil.example/', headers: html }, 400],
  ['a returnTo too long', { url: `/console/auth/login?returnTo=/console/${'a'.repeat(2100)}` }, 400],
  ['a callback without state', { url: '/console/auth/callback?code=x' }, 400],
  ['a callback to a browser', { url: '/console/auth/callback?code=x&state=y', headers: html }, 400],
  [
    'a callback whose sign-in is gone',
    { url: '/console/auth/callback?code=x&state=y', headers: { cookie: 'gsp_login=y' } },
    400,
  ],
  ['the session, signed out', { url: '/console/auth/session' }, 200],
  ['a sign-out without a session', { method: 'POST', url: '/console/auth/logout', headers: fromConsole }, 204],
  [
    'a cross-site sign-out',
    {
      method: 'POST',
      url: '/console/auth/logout',
      headers: { cookie: 'gsp_session=x', origin: 'https://evil.example' },
    },
    403,
  ],
  ['a route that does not exist', { url: '/console/auth/nope' }, 404],
];

for (const [what, request, status] of answers) {
  t.test(`${what} (${status}) carries nosniff, Referrer-Policy and Cross-Origin-Opener-Policy`, async (t) => {
    const res = await app.inject(request);
    t.equal(res.statusCode, status);
    t.equal(res.headers['x-content-type-options'], 'nosniff');
    t.equal(res.headers['referrer-policy'], 'same-origin');
    t.equal(res.headers['cross-origin-opener-policy'], 'same-origin');
    t.ok(res.headers['content-security-policy'], 'and a CSP');
  });
}

t.test('answers outside /console/ are not browser pages', async (t) => {
  const res = await app.inject({ url: '/api/v1/me' });
  t.equal(res.headers['cross-origin-opener-policy'], undefined);
});
