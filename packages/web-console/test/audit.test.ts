import t from 'tap';
import { bearer, PLATFORM_ADMIN, putMember } from '@gsp/api-server/testing';
import { assertBuilt, inspectAtEachWidth, launchBrowser, openPage, pageProblems } from './browser.js';
import { signInAs, startLiveStack } from './live-stack.js';

assertBuilt();
const stack = await startLiveStack(t);
const browser = await launchBrowser(t);
const FLAG_URL = '/api/v1/platform/feature-flags/cli_access.enabled';
const admin = await bearer(PLATFORM_ADMIN);

// 25 member writes by the platform admin (more than one page of 20), then one flag write with a reason.
for (let i = 0; i < 25; i += 1) {
  const res = await putMember(stack.app, 'acme', `member-${String(i).padStart(2, '0')}`, 'viewer', admin);
  if (res.statusCode !== 200) throw new Error(`seeding: ${res.statusCode} ${res.body}`);
}
const put = await stack.app.inject({
  method: 'PUT',
  url: FLAG_URL,
  headers: admin,
  payload: { value: false, reason: 'incident 7' },
});
if (put.statusCode !== 200) throw new Error(`seeding: ${put.statusCode} ${put.body}`);

t.test('a platform admin reads the audit newest first, filters it, pages it, and sees new entries live', async (t) => {
  const opened = await openPage(t, browser, stack.consoleUrl);
  const { page } = opened;
  await signInAs(page, 'root');
  const entries = page.getByRole('list', { name: 'Audit entries, newest first' }).getByRole('listitem');
  await entries.first().waitFor();

  t.equal(await entries.count(), 20, 'one page of 20');
  const newest = await entries.first().innerText();
  t.match(newest, /Flag set/);
  t.match(newest, /cli_access\.enabled = false/);
  t.match(newest, /“incident 7”/, 'the reason is in the line');
  t.match(newest, new RegExp(PLATFORM_ADMIN));

  await page.getByRole('button', { name: 'Show older entries' }).click();
  await entries.nth(25).waitFor();
  t.equal(await entries.count(), 26, 'the second page follows the first');
  t.equal(await page.getByRole('button', { name: 'Show older entries' }).count(), 0, 'no third page');
  t.match(await entries.last().innerText(), /member member-00 as viewer/, 'the oldest entry is last');

  await page.getByLabel('Action').selectOption({ label: 'Flag set' });
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForFunction(() => document.querySelectorAll('.audit-entry').length === 1);
  t.match(await entries.first().innerText(), /incident 7/, 'only the flag write');

  await page.getByLabel('Action').selectOption({ label: 'All actions' });
  await page.getByLabel('Actor (exactly as shown)').fill('somebody-else');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('No entries match this filter.').waitFor();

  await page.getByLabel('Actor (exactly as shown)').fill(PLATFORM_ADMIN);
  await page.getByRole('button', { name: 'Filter' }).click();
  await entries.nth(19).waitFor();
  const since = performance.now();
  t.equal((await stack.app.inject({ method: 'DELETE', url: FLAG_URL, headers: admin })).statusCode, 200);
  await entries.first().filter({ hasText: 'Flag cleared' }).waitFor({ timeout: 1000 });
  t.comment(`a new entry on the open page after ${(performance.now() - since).toFixed(0)} ms`);

  t.same(await inspectAtEachWidth(page, 'platform-audit'), [], 'axe: no serious or critical violations');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test('the audit is shown to platform admins only', async (t) => {
  const opened = await openPage(t, browser, stack.consoleUrl);
  await signInAs(opened.page, 'alice');
  await opened.page.getByText('CLI access is on for the platform.').waitFor();
  t.equal(await opened.page.getByRole('heading', { name: 'Audit' }).count(), 0);
});
