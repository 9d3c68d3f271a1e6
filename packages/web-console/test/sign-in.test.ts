import t from 'tap';
import { startConsoleStack } from '@gsp/api-server/testing';
import { assertBuilt, inspectAtEachWidth, launchBrowser, openPage, pageProblems } from './browser.js';

assertBuilt();
// Behind a front that strips a path prefix, as an ingress would: the page, its assets, its API
// calls and the sign-in's redirects must all stay under the prefix.
const stack = await startConsoleStack(t, {
  replicas: 1,
  prefix: '/gsp',
  provider: { claims: (login) => (login === 'root' ? { name: 'Rosa Root', email: 'rosa@example.com' } : {}) },
});
const browser = await launchBrowser(t);

t.test('a platform admin signs in through the provider and lands on the console, signed in', async (t) => {
  const opened = await openPage(t, browser, stack.publicUrl);
  const { page } = opened;
  await page.getByRole('link', { name: 'Sign in' }).click();

  // oidc-provider's development login and consent pages.
  await page.waitForURL((url) => url.origin === stack.issuer);
  await page.locator('input[name="login"]').fill('root');
  await page.locator('input[name="password"]').fill('any password');
  await page.locator('button[type="submit"]').click();
  await page.locator('button[type="submit"]', { hasText: /continue/i }).click();

  await page.getByText('CLI access is on for the platform.').waitFor();
  t.equal(new URL(page.url()).pathname, '/gsp/console/', 'back on the console, under the prefix');
  t.equal(
    await page.locator('header .who').innerText(),
    'Rosa Root',
    'the header names the user, not the OIDC subject',
  );
  t.same(
    await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]),
    [0, 0, ''],
    'no token in storage or a cookie scripts can read',
  );
  t.same(await inspectAtEachWidth(page, 'signed-in'), [], 'axe: no serious or critical violations');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});
