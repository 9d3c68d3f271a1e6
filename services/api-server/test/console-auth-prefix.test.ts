import t from 'tap';
import { Browser } from '@gsp/test-kit/oidc';
import { signIn, startConsoleStack } from './console-auth-stack.js';

/*
 * Behind a proxy that serves the platform under a path prefix (and strips it), everything the
 * browser sees comes from CONSOLE_PUBLIC_URL: the provider returns to the prefixed callback, the
 * cookie is scoped to the prefix, and the API under the prefix answers it.
 */
const stack = await startConsoleStack(t, { replicas: 1, prefix: '/gsp' });
const { front, publicUrl } = stack;

t.test('signing in behind a path prefix returns to the prefixed console with a prefix-scoped cookie', async (t) => {
  const browser = new Browser();
  const { response, finalUrl } = await signIn(browser, stack, 'carol');
  t.equal(
    finalUrl.split('?')[0],
    `${front}/gsp/console/auth/callback`,
    'the provider returned to the prefixed callback',
  );
  t.equal(response.status, 303);
  t.equal(response.headers.get('location'), publicUrl);
  const session = browser.setCookies.find((c) => c.value.startsWith('gsp_session='))?.value ?? '';
  t.match(session, /; Path=\/gsp\/;/);

  const me = await browser.fetch(`${front}/gsp/api/v1/me`);
  t.equal(me.status, 200, 'the API under the prefix receives the cookie');
  t.equal(((await me.json()) as { subject: string }).subject, `${stack.issuer}#carol`);
  t.equal(browser.cookieHeader(`${front}/api/v1/me`), '', 'a path outside the prefix does not get the cookie');

  const out = await browser.fetch(`${front}/gsp/console/auth/logout`, {
    method: 'POST',
    headers: { 'x-gsp-console': '1', origin: front },
  });
  t.equal(out.status, 204);
  t.equal((await browser.fetch(`${front}/gsp/api/v1/me`)).status, 401, 'signed out: the browser dropped the cookie');
});
