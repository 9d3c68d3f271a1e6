import t from 'tap';
import type { Page } from 'playwright-core';
import { bearer, PLATFORM_ADMIN } from '@gsp/api-server/testing';
import { assertBuilt, inspectAtEachWidth, launchBrowser, openPage, pageProblems } from './browser.js';
import { PLATFORM_ID, signInAs, startLiveStack } from './live-stack.js';

/*
 * A platform admin who is no tenant's member reads every tenant: its clusters, their CLI access and
 * who set it, and its members, by name where the platform knows it; nothing there changes them.
 */
assertBuilt();
const NAMES = new Map([
  ['root', 'Platform Root'],
  ['ada', 'Ada Lovelace'],
]);
const stack = await startLiveStack(t, {}, { claims: (login) => ({ name: NAMES.get(login) }) });
const browser = await launchBrowser(t);
const subjectOf = (login: string) => `${stack.issuer}#${login}`;
const apiAdmin = await bearer(PLATFORM_ADMIN);

async function api(method: 'GET' | 'PUT' | 'POST', url: string, payload?: object, headers: object = apiAdmin) {
  const res = await stack.app.inject({ method, url, headers: { ...headers }, ...(payload ? { payload } : {}) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}
const putMember = (org: string, login: string, role: string) =>
  api('PUT', `/api/v1/tenants/${org}/members/${encodeURIComponent(subjectOf(login))}`, { role });

/** A call with the session cookie of the signed-in `page`, as the console makes it. */
async function asPage(page: Page, method: 'PUT', url: string, payload: object, more: object = {}) {
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  return api(method, url, payload, { cookie, 'x-gsp-console': '1', ...more });
}

await putMember('acme', 'ada', 'admin');
await putMember('acme', 'vic', 'viewer');
await putMember('globex', 'gus', 'admin');
const eu = (await api('POST', '/api/v1/tenants/acme/clusters', { name: 'eu-1' })) as { id: string };
await api('POST', '/api/v1/tenants/acme/clusters', { name: 'us-1' });

t.test('a platform admin of no tenant reads every tenant, its clusters and members, by name', async (t) => {
  // Ada signs in once, so the platform knows her name, and switches eu-1 off from her session.
  const adas = await openPage(t, browser, stack.consoleUrl);
  await signInAs(adas.page, 'ada');
  await asPage(adas.page, 'PUT', `/api/v1/tenants/acme/clusters/${eu.id}/feature-flags/cli_access.enabled`, {
    value: false,
    reason: 'maintenance',
    expiresAt: new Date(Date.now() + 3600_000).toISOString(),
  });

  const opened = await openPage(t, browser, stack.consoleUrl);
  const { page } = opened;
  await signInAs(page, 'root');
  await asPage(
    page,
    'PUT',
    '/api/v1/platform/feature-flags/cli_access.enabled',
    { value: false, reason: 'incident 42' },
    { 'x-gsp-confirm': PLATFORM_ID },
  );

  const platform = page.getByRole('region', { name: 'Platform CLI access' });
  const setBy = platform.locator('.fact', { has: page.locator('dt', { hasText: 'Set by' }) }).locator('dd');
  await setBy.getByText('Platform Root').waitFor();
  t.equal(await setBy.locator('[title]').getAttribute('title'), subjectOf('root'), 'the subject on hover');

  const all = page.getByRole('region', { name: 'All tenants' });
  await all.getByText('acme: 2 clusters, 2 members').waitFor();
  t.ok(await all.getByText('globex: 0 clusters, 1 member').isVisible(), 'every tenant, with its counts');
  t.equal(await page.getByText(/You are not a member of any tenant/).count(), 0, 'not told they belong to none');

  await all.getByText('acme: 2 clusters, 2 members').click();
  const card = all.getByRole('article', { name: 'eu-1' });
  await card.waitFor();
  const fact = (label: string) =>
    card
      .locator('.fact', { has: page.locator('dt', { hasText: label }) })
      .locator('dd')
      .innerText();
  t.equal(await fact('CLI access'), 'Off');
  t.equal(await fact('Source'), "this cluster's override");
  t.equal(await fact('Set by'), 'Ada Lovelace (tenant admin)', 'who switched it off, by name');
  t.equal(await fact('Reason'), 'maintenance');
  t.match(await card.locator('.notice-warning').innerText(), /for cluster .*"maintenance"/, "kubectl's refusal");
  await all.getByRole('article', { name: 'us-1' }).waitFor();

  const members = all.locator('.members');
  await members.getByText('Ada Lovelace').waitFor();
  t.match(await members.innerText(), new RegExp(`Ada Lovelace\\s+${subjectOf('ada')}\\s+Admin`), 'by name');
  t.match(await members.innerText(), new RegExp(`${subjectOf('vic')}\\s+Viewer`), 'by subject where no name');
  t.equal(await all.getByRole('button').count(), 0, 'read-only: nothing to press');
  t.equal(await all.getByRole('link').count(), 0, 'no kubeconfig download');
  t.equal(await all.getByRole('combobox').count(), 0, 'no role to change');

  t.same(await inspectAtEachWidth(page, 'platform-admin-tenants'), [], 'axe: no serious or critical violations');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test('a tenant member sees no list of every tenant', async (t) => {
  const opened = await openPage(t, browser, stack.consoleUrl);
  await signInAs(opened.page, 'ada');
  await opened.page.getByRole('region', { name: 'Tenant acme' }).waitFor();
  t.equal(await opened.page.getByRole('region', { name: 'All tenants' }).count(), 0);
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});
