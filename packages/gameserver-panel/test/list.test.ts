import t from 'tap';
import type { Page } from 'playwright-core';
import {
  inspectAtEachWidth,
  launchBrowser,
  openPage,
  pageProblems,
  seriousA11yViolations,
} from '@gsp/test-kit/browser';
import {
  ARTEFACTS_DIR,
  BASIC_ADMIN,
  LIMITED_ROLE,
  seedServers,
  signInApiKey,
  signInBasic,
  startPanelStack,
  until,
} from './stack.js';

const stack = await startPanelStack(t);
const browser = await launchBrowser(t);
// 1,000 servers in `other`; a few in `games`, which sorts first.
await seedServers(stack.kube, 'other', 1000);
await seedServers(stack.kube, 'games', 3, 'arena');

const row = (page: Page, name: string) =>
  page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });

/** The "Showing n of m" line, as numbers. */
async function counts(page: Page): Promise<[number, number]> {
  const text = await page.locator('.servers-count').innerText();
  const [shown, total] = (text.match(/[\d,]+/g) ?? []).map((n) => Number(n.replaceAll(',', '')));
  return [shown ?? -1, total ?? -1];
}

async function allLoaded(page: Page, total: number): Promise<void> {
  await until(`${total} servers listed`, async () => (await counts(page))[1] === total, 30_000);
}

t.test(
  'an admin signs in with Basic, creates a server from a profile and sees it become Ready without reload',
  async (t) => {
    const opened = await openPage(t, browser, stack.panelUrl);
    const { page } = opened;
    await signInBasic(page);
    t.match(await page.locator('header .who').innerText(), /root \(admin\)/, 'the header names the user and role');
    await page.getByRole('button', { name: 'Create a game server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a game server' });
    await dialog.getByLabel('Profile').selectOption('arena');
    await dialog.getByLabel('Namespace').fill('games');
    await dialog.getByLabel('Name (optional)').fill('Not A Label');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByText('The name "Not A Label" is not valid.').waitFor();
    await dialog.getByLabel('Name (optional)').fill('duel-1');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'detached' });
    const created = row(page, 'duel-1');
    await created.waitFor();
    await created.getByText('Ready', { exact: true }).waitFor({ timeout: 15_000 });
    t.match(await created.innerText(), /games/, 'in its namespace');
    t.match(await created.innerText(), /arena/, 'with its profile');
    t.equal(await page.evaluate(() => performance.getEntriesByName('gsp:first-rows').length), 1, 'first rows marked');
    t.same(
      await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]),
      [0, 0, ''],
      'no credential in storage or a script-readable cookie',
    );
    t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
  },
);

t.test('1,000 servers render, scroll to the last and narrow with the filters', async (t) => {
  const opened = await openPage(t, browser, stack.panelUrl);
  const { page } = opened;
  await signInBasic(page);
  await allLoaded(page, 1004);
  const rendered = await page.getByRole('row').count();
  t.ok(rendered > 5 && rendered < 200, `only the rows near the viewport are in the DOM (${rendered})`);
  await page.getByRole('link', { name: 'arena-0000', exact: true }).waitFor();
  t.same(await seriousA11yViolations(page), [], 'axe on the 1,000: no serious or critical violations');

  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await page.getByRole('link', { name: 'gs-0999', exact: true }).waitFor();
  t.pass('scrolling to the bottom shows the last server');
  await page.evaluate(() => window.scrollTo(0, 0));

  await page.getByLabel('Namespace').selectOption('games');
  t.same((await counts(page))[0], 4, 'namespace games: its four servers');
  // Photographed filtered: a full-page picture of 1,000 rows would be 45,000 px tall.
  t.same(await inspectAtEachWidth(page, 'list', ARTEFACTS_DIR), [], 'axe: no serious or critical violations');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByLabel('Namespace').selectOption('other');
  await page.getByLabel('Labels').fill('tier=gold');
  t.same(await counts(page), [100, 1004], 'tier=gold: every tenth');
  await page.getByLabel('Labels').fill('tier=gold,');
  await page.getByText('An empty term is not a label term').waitFor();
  await page.getByLabel('Labels').fill('tier!=gold,gsp.dev/profile=lobby');
  t.same((await counts(page))[0], 900, 'tier!=gold');
  await page.getByLabel('State').selectOption('Error');
  t.same((await counts(page))[0], 0, 'no server in Error');
  await page.getByText('No game server matches the filters.').waitFor();
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test('delete asks for a confirmation naming the server; an Allocated one needs force', async (t) => {
  const { page } = await openPage(t, browser, stack.panelUrl);
  await signInBasic(page);
  await page.getByLabel('Namespace').selectOption('games');
  await row(page, 'arena-0001').getByText('Ready', { exact: true }).waitFor({ timeout: 15_000 });

  await row(page, 'arena-0001').getByRole('button', { name: 'Delete games/arena-0001' }).click();
  let dialog = page.getByRole('dialog', { name: 'Delete game server games/arena-0001?' });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  t.equal(await row(page, 'arena-0001').count(), 1, 'cancel keeps it');
  await row(page, 'arena-0001').getByRole('button', { name: 'Delete games/arena-0001' }).click();
  await dialog.getByRole('button', { name: 'Delete arena-0001' }).click();
  await row(page, 'arena-0001').waitFor({ state: 'detached', timeout: 15_000 });
  t.pass('deleted, and gone from the list without reload');

  const allocate = await stack.app.inject({
    method: 'POST',
    url: '/api/v1/gameservers/games/arena-0002/actions/allocate',
    headers: BASIC_ADMIN,
  });
  t.equal(allocate.statusCode, 200, 'arena-0002 allocated');
  await row(page, 'arena-0002').getByText('Allocated', { exact: true }).waitFor();
  await row(page, 'arena-0002').getByRole('button', { name: 'Delete games/arena-0002' }).click();
  dialog = page.getByRole('dialog', { name: 'Delete game server games/arena-0002?' });
  const confirm = dialog.getByRole('button', { name: 'Delete arena-0002' });
  t.ok(await confirm.isDisabled(), 'not without force');
  await dialog.getByLabel(/Force/).check();
  await confirm.click();
  await row(page, 'arena-0002').waitFor({ state: 'detached', timeout: 15_000 });
  t.pass('forced deletion of an Allocated server');
});

t.test("a viewer's create and delete are disabled with the reason", async (t) => {
  const key = await stack.createApiKey('viewer', 'list-viewer');
  const opened = await openPage(t, browser, stack.panelUrl);
  const { page } = opened;
  await signInApiKey(page, key);
  await page.getByRole('link', { name: 'arena-0000', exact: true }).waitFor();
  const create = page.getByRole('button', { name: 'Create a game server' });
  t.ok(await create.isDisabled(), 'create disabled');
  const why = 'Your role (viewer) cannot create game servers; ask an admin.';
  t.equal(await page.getByText(why).count(), 1, 'the reason is on the page');
  t.equal(await create.getAttribute('aria-describedby'), await page.getByText(why).getAttribute('id'));
  const del = page.getByRole('button', { name: 'Delete games/arena-0000' });
  t.ok(await del.isDisabled(), 'delete disabled');
  const describedBy = await del.getAttribute('aria-describedby');
  t.equal(
    await page.locator(`[id="${describedBy}"]`).innerText(),
    'Your role (viewer) cannot delete game servers; ask an admin.',
  );
  t.notOk(await page.getByRole('link', { name: 'API keys' }).isVisible(), 'no API keys in the navigation');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test('a namespace-limited role never sees the other namespace', async (t) => {
  const key = await stack.createApiKey(LIMITED_ROLE, 'list-limited');
  const { page } = await openPage(t, browser, stack.panelUrl);
  await signInApiKey(page, key);
  await page.locator('.servers-count').waitFor();
  const [, total] = await counts(page);
  const all = await stack.app.inject({ url: '/api/v1/gameservers?namespace=games', headers: BASIC_ADMIN });
  t.equal(total, (all.json() as unknown[]).length, 'every server of games, and no other');
  t.equal(await page.getByRole('link', { name: /^gs-/ }).count(), 0, 'no server of other in the list');
  const options = await page.getByLabel('Namespace').locator('option').allInnerTexts();
  t.same(options, ['All namespaces', 'games'], 'the namespace select offers games only');
  t.ok(await page.getByRole('button', { name: 'Create a game server' }).isEnabled(), 'it may create in games');
});

t.test('keyboard only: the skip link, the create dialog and a server link', async (t) => {
  const { page } = await openPage(t, browser, stack.panelUrl);
  await signInBasic(page);
  await page.getByRole('link', { name: 'arena-0000', exact: true }).waitFor();
  const focused = () => page.evaluate(() => document.activeElement?.textContent ?? document.activeElement?.id);
  // From the top of a fresh page (the cookie keeps it signed in), as a keyboard user arrives.
  await page.reload();
  await page.getByRole('link', { name: 'arena-0000', exact: true }).waitFor();
  await page.keyboard.press('Tab');
  t.equal(await focused(), 'Skip to main content', 'the first stop is the skip link');
  await page.keyboard.press('Enter');
  t.equal(await page.evaluate(() => document.activeElement?.id), 'main', 'Enter moves focus to the content');
  t.equal(new URL(page.url()).hash, '', 'without changing the route');
  await page.keyboard.press('Tab');
  t.equal(await focused(), 'Create a game server');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Create a game server' });
  await dialog.getByLabel('Profile').waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  t.equal(await focused(), 'Create a game server', 'Escape closes it and focus returns');
  await page.getByRole('link', { name: 'arena-0000', exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/#\/servers\/games\/arena-0000$/);
  t.pass("Enter on a server's name opens its page");
});
