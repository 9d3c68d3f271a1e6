import t from 'tap';
import { bearer, build, PLATFORM_ADMIN, seedTenant } from '@gsp/api-server/testing';
import { assertBuilt, DIST_DIR, inspectAtEachWidth, launchBrowser, openPage, pageProblems } from './browser.js';

assertBuilt();
const { app } = await build(t, { CONSOLE_DIST_DIR: DIST_DIR });
const origin = await app.listen({ port: 0, host: '127.0.0.1' });
const consoleUrl = `${origin}/console/`;
const browser = await launchBrowser(t);

t.test('signed out, the console offers to sign in, with no CSP violation or serious a11y issue', async (t) => {
  const opened = await openPage(t, browser, consoleUrl);
  const signIn = opened.page.getByRole('link', { name: 'Sign in' });
  await signIn.waitFor();
  t.equal(await signIn.getAttribute('href'), `${origin}/console/auth/login`);
  t.same(await inspectAtEachWidth(opened.page, 'signed-out'), [], 'axe: no serious or critical violations');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test('a platform admin sees the platform switch with its record, and their tenants', async (t) => {
  const headers = await bearer(PLATFORM_ADMIN);
  await seedTenant(app, 'dev', { [PLATFORM_ADMIN]: 'admin' });
  const expiresAt = new Date(Date.now() + 10 * 60_000).toISOString();
  const put = await app.inject({
    method: 'PUT',
    url: '/api/v1/platform/feature-flags/cli_access.enabled',
    headers,
    payload: { value: false, reason: 'incident 42', expiresAt },
  });
  t.equal(put.statusCode, 200, put.body);

  // The API accepts the bearer token; the console's own sign-in is not configured here.
  const opened = await openPage(t, browser, consoleUrl, { extraHTTPHeaders: headers });
  const { page } = opened;
  await page.getByText('CLI access is off for the platform.').waitFor();
  const facts = page.locator('dl.facts');
  t.match(await facts.innerText(), /Set by\s+platform-root/);
  t.match(await facts.innerText(), /Reason\s+incident 42/);
  t.match(await facts.innerText(), /Source\s+set by a platform admin/);
  t.notMatch(await facts.innerText(), /Expires\s+Never/, 'the expiry is shown');
  const tenant = page.getByRole('region', { name: 'Tenant dev' });
  t.match(await tenant.getByText(/^Your role:/).innerText(), /^Your role: Admin —/, 'the tenant, with their role');
  await tenant.getByText('No cluster is registered in this tenant yet.').waitFor();
  t.same(await inspectAtEachWidth(page, 'platform-admin'), [], 'axe: no serious or critical violations');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});
