import t from 'tap';
import { CustomObjectsApi } from '@kubernetes/client-node';
import type { Locator, Page } from 'playwright-core';
import { inspectAtEachWidth, launchBrowser, openPage, pageProblems } from '@gsp/test-kit/browser';
import { ARTEFACTS_DIR, BASIC_ADMIN, signInApiKey, signInBasic, startPanelStack, until } from './stack.js';

const stack = await startPanelStack(t);
const browser = await launchBrowser(t);

/** A fleet of `replicas` game servers of profile `lobby`, straight in kube-lite (as kubectl would). */
async function createFleet(namespace: string, name: string, replicas: number): Promise<void> {
  await stack.kube.kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: 'agones.dev',
    version: 'v1',
    namespace,
    plural: 'fleets',
    body: {
      apiVersion: 'agones.dev/v1',
      kind: 'Fleet',
      metadata: { name, labels: { 'gsp.dev/profile': 'lobby' } },
      spec: {
        replicas,
        template: { spec: { ports: [{ name: 'game', containerPort: 7000, protocol: 'UDP' }] } },
      },
    },
  });
}

await createFleet('games', 'crowd', 0);
await until('the fleet is cached', async () => {
  const res = await stack.app.inject({ method: 'GET', url: '/api/v1/fleets', headers: BASIC_ADMIN });
  return res.statusCode === 200 && (res.json() as unknown[]).length === 1;
});

/** The text of what a control's `aria-describedby` points at: what a screen reader reads with it. */
async function description(control: Locator): Promise<string> {
  return control.evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent ?? `(missing #${id})`)
      .join(' '),
  );
}

/** The value of the fact labelled `label` inside `scope` (a Facts list). */
async function fact(scope: Locator, label: string): Promise<string> {
  return scope
    .locator('.fact')
    .filter({ has: scope.page().getByText(label, { exact: true }) })
    .locator('dd')
    .innerText();
}

async function go(page: Page, link: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Panel' }).getByRole('link', { name: link, exact: true }).click();
}

t.test('an admin scales a fleet and sees the new replica count', async (t) => {
  const opened = await openPage(t, browser, stack.panelUrl);
  const { page } = opened;
  await signInBasic(page);
  await go(page, 'Fleets');
  const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: /crowd/ }) });
  await card.waitFor();
  t.equal(await fact(card, 'Desired'), '0');
  t.equal(await fact(card, 'Profile'), 'lobby');

  const replicas = card.getByLabel('Desired replicas (0 to 10000)');
  await replicas.fill('two');
  await card.getByRole('button', { name: 'Scale' }).click();
  t.equal(await replicas.getAttribute('aria-invalid'), 'true', 'a count that is no whole number is refused here');
  t.match(await description(replicas), 'Enter a whole number of replicas from 0 to 10000.');

  await replicas.fill('2');
  await card.getByRole('button', { name: 'Scale' }).click();
  await card.getByText('Fleet crowd now wants 2 replicas.').waitFor();
  await until('the card shows 2 desired', async () => (await fact(card, 'Desired')) === '2');
  t.equal(await replicas.getAttribute('aria-invalid'), null, 'the field is no longer marked invalid');
  const res = await stack.app.inject({ method: 'GET', url: '/api/v1/fleets/games/crowd', headers: BASIC_ADMIN });
  t.equal((res.json() as { replicas: number }).replicas, 2, 'the control plane has it');

  t.same(await inspectAtEachWidth(page, 'fleets', ARTEFACTS_DIR), [], 'axe: no serious or critical violations');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test('the fleets page follows a scale made elsewhere without a reload; Refresh sits in its toolbar', async (t) => {
  const opened = await openPage(t, browser, stack.panelUrl);
  const { page } = opened;
  await signInBasic(page);
  await go(page, 'Fleets');
  const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: /crowd/ }) });
  await card.waitFor();
  const before = Number(await fact(card, 'Desired'));
  const scaled = await stack.app.inject({
    method: 'POST',
    url: '/api/v1/fleets/games/crowd/scale',
    headers: BASIC_ADMIN,
    payload: { replicas: before + 1 },
  });
  t.equal(scaled.statusCode, 200, 'scaled through the API, as kubectl or another person would');
  const seenAt = Date.now();
  await until('the card shows the new count', async () => (await fact(card, 'Desired')) === String(before + 1), 15_000);
  t.pass(`the card shows ${before + 1} desired ${Date.now() - seenAt} ms later, with no click`);
  t.equal(await card.getByLabel('Desired replicas (0 to 10000)').inputValue(), String(before + 1), 'so does its field');

  const refresh = page.getByRole('button', { name: 'Refresh' });
  t.ok(await refresh.evaluate((el) => el.closest('p') === null), 'Refresh is no part of a paragraph');
  // The panel's own controls come right under its heading, before its text, as Create does on the list.
  const order = await page.locator('section.panel').evaluate((panel) =>
    Array.from(panel.querySelectorAll('h2, button, .fleet-intro'))
      .slice(0, 3)
      .map((el) => el.textContent),
  );
  t.same(order.slice(0, 2), ['Fleets', 'Refresh'], `the heading, then Refresh (${JSON.stringify(order)})`);
  t.match(order[2], /^A fleet keeps/, 'then the text');
  t.same(await inspectAtEachWidth(page, 'fleets-live', ARTEFACTS_DIR), [], 'axe: no serious or critical violations');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test("a refused scale shows the control plane's sentence", async (t) => {
  await createFleet('games', 'brief', 0);
  const opened = await openPage(t, browser, stack.panelUrl);
  const { page } = opened;
  await signInBasic(page);
  await go(page, 'Fleets');
  const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: /brief/ }) });
  await until('the fleet is listed', async () => {
    if ((await card.count()) === 1) return true;
    await page.getByRole('button', { name: 'Refresh' }).click();
    return false;
  });
  await stack.kube.kubeConfig.makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({
    group: 'agones.dev',
    version: 'v1',
    namespace: 'games',
    plural: 'fleets',
    name: 'brief',
  });
  await card.getByLabel('Desired replicas (0 to 10000)').fill('1');
  await card.getByRole('button', { name: 'Scale' }).click();
  await card.getByRole('alert').waitFor();
  t.equal(await card.getByRole('alert').innerText(), 'Fleet games/brief not found.', 'the refusal, as a sentence');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test('an admin edits a profile, sees each error at its field, fixes them and saves', async (t) => {
  const opened = await openPage(t, browser, stack.panelUrl);
  const { page } = opened;
  await signInBasic(page);
  await go(page, 'Profiles');
  await page.getByRole('button', { name: 'arena', exact: true }).click();
  const detail = page.getByRole('article', { name: 'Profile arena' });
  t.equal(await fact(detail, 'Image'), 'example/arena:1.0');
  t.same(await inspectAtEachWidth(page, 'profiles', ARTEFACTS_DIR), [], 'axe: the list and a profile');
  await page.setViewportSize({ width: 1280, height: 800 });

  await detail.getByRole('button', { name: 'Edit profile arena' }).click();
  const form = page.getByRole('form', { name: 'Edit profile arena' });
  const cpu = form.getByLabel('CPU request', { exact: true });
  const port = form.getByLabel('Port 1 container port');
  await cpu.fill('lots');
  await port.fill('99999');
  await form.getByRole('button', { name: 'Save profile' }).click();

  const summary = form.getByRole('alert');
  await summary.waitFor();
  t.match(await summary.innerText(), /not saved: 2 problems/, 'a summary on top counts them');
  t.equal(await cpu.getAttribute('aria-invalid'), 'true', 'the CPU request is marked invalid');
  t.match(await description(cpu), /resources\.requests\.cpu must be a Kubernetes quantity/i, 'with the sentence at it');
  t.equal(await port.getAttribute('aria-invalid'), 'true', 'the port is marked invalid');
  t.match(await description(port), 'The ports[0].containerPort must be at most 65535.', 'with its own sentence');
  t.equal(await form.getByLabel('Container image').getAttribute('aria-invalid'), null, 'a good field is not marked');
  t.ok(await summary.evaluate((el) => el === document.activeElement), 'the summary takes focus');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  t.ok(await port.evaluate((el) => el === document.activeElement), "the summary's first item leads to its field");
  t.same(await inspectAtEachWidth(page, 'profile-errors', ARTEFACTS_DIR), [], 'axe: the form with its errors');
  await page.setViewportSize({ width: 1280, height: 800 });

  await cpu.fill('500m');
  await port.fill('7777');
  await form.getByRole('button', { name: 'Save profile' }).click();
  await page.getByText('Profile arena saved.').waitFor();
  await until('the facts show the request', async () => /CPU 500m/.test(await fact(detail, 'Requests')));
  const res = await stack.app.inject({ method: 'GET', url: '/api/v1/profiles/arena', headers: BASIC_ADMIN });
  t.match(res.json(), { resources: { requests: { cpu: '500m' } }, ports: [{ containerPort: 7777 }] }, 'stored');
  t.match(res.json(), { actions: { 'say-hello': { command: ['echo', 'hello'] } } }, 'the JSON part is kept');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test("at 375 px each fieldset's legend sits inside its border, not across it", async (t) => {
  const opened = await openPage(t, browser, stack.panelUrl);
  const { page } = opened;
  await signInBasic(page);
  await go(page, 'Profiles');
  await page.getByRole('button', { name: 'New profile' }).click();
  const form = page.getByRole('form', { name: 'New profile' });
  await form.waitFor();
  t.same(await inspectAtEachWidth(page, 'profile-form', ARTEFACTS_DIR), [], 'axe: the form at both widths');
  // inspectAtEachWidth leaves the page at 375 px.
  const legends = await form.locator('fieldset > legend').evaluateAll((all) =>
    all.map((legend) => {
      const fieldset = legend.parentElement as HTMLElement;
      const border = parseFloat(getComputedStyle(fieldset).borderTopWidth);
      const inner = fieldset.getBoundingClientRect().top + border;
      const box = legend.getBoundingClientRect();
      return {
        text: legend.textContent ?? '',
        lines: Math.round(box.height / parseFloat(getComputedStyle(legend).lineHeight)),
        inside: box.top >= inner,
      };
    }),
  );
  t.ok(legends.length >= 2, `${legends.length} legends`);
  t.ok(
    legends.some((l) => l.lines > 1),
    'one of them takes more than one line at 375 px',
  );
  for (const legend of legends) t.ok(legend.inside, `"${legend.text}" is below the top border (${legend.lines} lines)`);
  await page.setViewportSize({ width: 1280, height: 800 });
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test('an admin creates a profile under a checked name, then deletes it after a confirmation', async (t) => {
  const opened = await openPage(t, browser, stack.panelUrl);
  const { page } = opened;
  await signInBasic(page);
  await go(page, 'Profiles');
  await page.getByRole('button', { name: 'New profile' }).click();
  const form = page.getByRole('form', { name: 'New profile' });
  const name = form.getByLabel('Name (lower-case letters, digits and "-")');
  await name.fill('Duel Map');
  await form.getByLabel('Container image').fill('example/duel:1.0');
  await form.getByRole('button', { name: 'Create profile' }).click();
  t.equal(await name.getAttribute('aria-invalid'), 'true', 'a name that is no DNS label is refused here');
  t.match(await description(name), /1 to 63 lower-case letters/);
  await name.fill('arena');
  await form.getByRole('button', { name: 'Create profile' }).click();
  t.match(await description(name), 'A profile named arena exists already', 'an existing one is not replaced');

  await name.fill('duel');
  await form.getByRole('button', { name: 'Create profile' }).click();
  await page.getByText('Profile duel created.').waitFor();
  const detail = page.getByRole('article', { name: 'Profile duel' });
  t.equal(await fact(detail, 'Ports'), 'game 7777/UDP');

  await detail.getByRole('button', { name: 'Delete profile duel' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete profile duel?' });
  t.match(await dialog.innerText(), /no new game server can be created from it/);
  await dialog.getByRole('button', { name: 'Delete profile duel' }).click();
  await page.getByText('Profile duel deleted.').waitFor();
  const listed = page.getByRole('button', { name: 'duel', exact: true });
  await until('gone from the list', async () => (await listed.count()) === 0);
  const res = await stack.app.inject({ method: 'GET', url: '/api/v1/profiles/duel', headers: BASIC_ADMIN });
  t.equal(res.statusCode, 404);
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test('an admin creates an API key, sees it once, copies it and revokes it', async (t) => {
  const opened = await openPage(t, browser, stack.panelUrl, { permissions: ['clipboard-read', 'clipboard-write'] });
  const { page } = opened;
  await signInBasic(page);
  await go(page, 'API keys');
  const create = page.getByRole('form', { name: 'Create an API key' });
  await create.waitFor();

  const longest = await create.getByLabel('Expires after').locator('option').first().innerText();
  t.equal(
    longest,
    'The longest lifetime the control plane allows (never, if it sets no limit)',
    'the default expiry is said in words, not as a variable name',
  );
  await create.getByLabel('Name').fill('ci-bot');
  await create.getByLabel('Role (what the key may do)').selectOption('operator');
  await create.getByLabel('Expires after').selectOption('24h');
  await create.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog', { name: 'API key ci-bot is created' });
  await dialog.waitFor();
  const field = dialog.getByLabel('API key (send it as the X-API-Key header)');
  const key = await field.inputValue();
  t.match(key, /^gsp_/, 'the key is shown');
  t.equal(await field.getAttribute('readonly'), '', 'read-only');
  t.match(await dialog.innerText(), /shown only once/, 'with the warning');
  t.same(await inspectAtEachWidth(page, 'apikey-once-dialog', ARTEFACTS_DIR), [], 'axe: the dialog');
  await page.setViewportSize({ width: 1280, height: 800 });

  await dialog.getByRole('button', { name: 'Copy key' }).click();
  await dialog.getByText('Key copied.').waitFor();
  t.equal(await page.evaluate(() => navigator.clipboard.readText()), key, 'the clipboard holds the key');
  const works = await stack.app.inject({ method: 'GET', url: '/api/v1/session', headers: { 'x-api-key': key } });
  t.match(works.json(), { role: 'operator' }, 'the key works with its role');

  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  await page.getByText('API key ci-bot created.').waitFor();
  const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'ci-bot' }) });
  await card.waitFor();
  t.equal(await fact(card, 'Role'), 'operator');
  t.equal(await fact(card, 'Created by'), 'root');
  t.not(await fact(card, 'Expires'), 'Never', 'with its expiry');
  const seen = await page.evaluate(() => ({
    html: document.documentElement.outerHTML,
    stored: JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    lengths: [localStorage.length, sessionStorage.length],
  }));
  t.notOk(seen.html.includes(key), 'the key is nowhere in the page once the dialog is closed');
  t.notOk(seen.stored.includes(key), 'nor in localStorage or sessionStorage');
  t.same(seen.lengths, [0, 0], 'which are empty');
  t.same(await inspectAtEachWidth(page, 'apikeys', ARTEFACTS_DIR), [], 'axe: the keys and the form');
  await page.setViewportSize({ width: 1280, height: 800 });

  await card.getByRole('button', { name: 'Revoke ci-bot' }).click();
  const confirm = page.getByRole('dialog', { name: 'Revoke API key ci-bot?' });
  t.match(await confirm.innerText(), /stops working at once/);
  await confirm.getByRole('button', { name: 'Revoke API key ci-bot' }).click();
  await page.getByText('API key ci-bot revoked.').waitFor();
  await until('gone from the list', async () => (await card.count()) === 0);
  await until('the key no longer authenticates', async () => {
    const res = await stack.app.inject({ method: 'GET', url: '/api/v1/session', headers: { 'x-api-key': key } });
    return res.statusCode === 401;
  });
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test('a viewer sees every control disabled with the reason, and no API keys page', async (t) => {
  const key = await stack.createApiKey('viewer', 'viewer-key');
  const opened = await openPage(t, browser, stack.panelUrl);
  const { page } = opened;
  await signInApiKey(page, key);
  const nav = page.getByRole('navigation', { name: 'Panel' });
  t.equal(await nav.getByRole('link', { name: 'API keys' }).count(), 0, 'API keys are not offered');

  await go(page, 'Fleets');
  const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: /crowd/ }) });
  const scale = card.getByRole('button', { name: 'Scale' });
  await scale.waitFor();
  t.ok(await scale.isDisabled(), 'Scale is disabled');
  t.equal(await description(scale), 'Your role (viewer) cannot scale fleets; ask an admin.', 'and says why');
  t.ok(await card.getByLabel('Desired replicas (0 to 10000)').isDisabled(), 'so is its field');

  await go(page, 'Profiles');
  const add = page.getByRole('button', { name: 'New profile' });
  t.ok(await add.isDisabled(), 'New profile is disabled');
  t.equal(await description(add), 'Your role (viewer) cannot edit profiles; ask an admin.');
  await page.getByRole('button', { name: 'lobby', exact: true }).click();
  const edit = page.getByRole('button', { name: 'Edit profile lobby' });
  const remove = page.getByRole('button', { name: 'Delete profile lobby' });
  t.ok((await edit.isDisabled()) && (await remove.isDisabled()), 'Edit and Delete are disabled');
  t.equal(await description(remove), 'Your role (viewer) cannot delete profiles; ask an admin.');

  await page.evaluate(() => {
    window.location.hash = '#/apikeys';
  });
  await page.getByText('Your role (viewer) cannot see API keys; ask an admin.').waitFor();
  t.equal(
    await page.getByRole('form', { name: 'Create an API key' }).count(),
    0,
    'reached by its address, it only says why',
  );
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});
