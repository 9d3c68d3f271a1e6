import t from 'tap';
import { inspectAtEachWidth, launchBrowser, openPage, pageProblems } from '@gsp/test-kit/browser';
import { ARTEFACTS_DIR, seedServers, signInApiKey, signInBasic, signInOidc, startPanelStack } from './stack.js';

const stack = await startPanelStack(t);
const browser = await launchBrowser(t);

t.test('signed out, the panel offers every sign-in method the control plane has', async (t) => {
  const opened = await openPage(t, browser, stack.panelUrl);
  const { page } = opened;
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  const idp = page.getByRole('link', { name: 'Sign in with your identity provider' });
  const href = new URL((await idp.getAttribute('href')) ?? '', page.url());
  t.equal(href.pathname, '/panel/auth/login', 'the provider link starts the sign-in');
  t.match(href.searchParams.get('returnTo') ?? '', /^\/panel\//, 'and comes back under /panel/');
  t.equal(await page.getByLabel('Password', { exact: true }).getAttribute('type'), 'password');
  t.equal(await page.getByLabel('API key', { exact: true }).getAttribute('type'), 'password', 'the key is masked');
  t.equal(await page.getByRole('navigation').count(), 0, 'no navigation before signing in');
  t.same(await inspectAtEachWidth(page, 'sign-in', ARTEFACTS_DIR), [], 'axe: no serious or critical violations');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test('an operator signs in through the identity provider and comes back to the page they were on', async (t) => {
  const opened = await openPage(t, browser, `${stack.panelUrl}#/fleets`);
  const { page } = opened;
  await signInOidc(page, 'operator');
  t.equal(new URL(page.url()).hash, '#/fleets', 'back on the route');
  t.equal(await page.locator('header .who').innerText(), 'operator (operator)', 'named, with the mapped role');
  t.same(
    await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]),
    [0, 0, ''],
    'no credential in storage or a script-readable cookie',
  );
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test('a wrong password or key is refused in a sentence, and the form stays', async (t) => {
  const { page } = await openPage(t, browser, stack.panelUrl);
  await page.getByLabel('Username', { exact: true }).fill('root');
  await page.getByLabel('Password', { exact: true }).fill('not the password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  const refusal = page.getByRole('alert').first();
  await refusal.waitFor();
  t.match(await refusal.innerText(), /^[A-Z].*\.$/, `a sentence: ${await refusal.innerText()}`);
  await page.getByLabel('API key', { exact: true }).fill('gsp_not-a-key');
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await page.getByRole('alert').nth(1).waitFor();
  t.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0, 'still signed out');
});

t.test('sign out returns to the sign-in view, and the session is over on the server', async (t) => {
  const { page } = await openPage(t, browser, stack.panelUrl);
  await signInBasic(page);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  const answer = await page.evaluate(async () => (await fetch('auth/session')).json());
  t.match(answer, { signedIn: false }, 'the cookie no longer signs in');
  t.equal(await page.getByText('Your session has ended; sign in again.').count(), 0, 'not "ended": they chose to');
});

t.test('when its API key is revoked, the open page shows the sign-in view saying the session ended', async (t) => {
  const key = await stack.createApiKey('admin', 'sign-in-revoked');
  const { page } = await openPage(t, browser, stack.panelUrl);
  await signInApiKey(page, key);
  await page.locator('[data-live="live"]').waitFor({ state: 'attached' });
  const revoked = Date.now();
  await stack.revokeApiKey('sign-in-revoked');
  // The live feed closes with the reason; the page asks for the session and finds it over.
  await page.getByText('Your session has ended; sign in again.').waitFor({ timeout: 5_000 });
  t.ok(Date.now() - revoked < 5_000, `shown ${Date.now() - revoked} ms after the revocation`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0, 'signed out');
});

t.test('behind a proxy that adds a path prefix, sign-in and the live list stay under it', async (t) => {
  const behind = await startPanelStack(t, {}, { prefix: '/gsp' });
  await seedServers(behind.kube, 'games', 2, 'behind');
  const opened = await openPage(t, browser, behind.panelUrl);
  const { page } = opened;
  const outside: string[] = [];
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.origin === behind.origin && !url.pathname.startsWith('/gsp/')) outside.push(url.pathname);
  });
  await signInOidc(page, 'admin');
  t.equal(new URL(page.url()).pathname, '/gsp/panel/', 'back on the panel, under the prefix');
  await page.getByRole('link', { name: 'behind-0001', exact: true }).waitFor();
  await page.locator('[data-live="live"]').waitFor({ state: 'attached' });
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signInBasic(page);
  await page.getByRole('link', { name: 'behind-0000', exact: true }).waitFor();
  t.same(outside, [], 'no request left the prefix');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});
