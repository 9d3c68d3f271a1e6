import t from 'tap';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Locator, Page } from 'playwright-core';
import { bearer, PLATFORM_ADMIN, until } from '@gsp/api-server/testing';
import { assertBuilt, inspectAtEachWidth, launchBrowser, openPage, pageProblems, WIDTHS } from './browser.js';
import type { OpenedPage } from './browser.js';
import { signInAs, startLiveStack } from './live-stack.js';

assertBuilt();
const TUNNEL_URL = 'https://tunnel.example.test:8444';
/** Ada's identity provider gives her name; the others' gives none. */
const stack = await startLiveStack(
  t,
  { PROXY_TUNNEL_PUBLIC_URL: `${TUNNEL_URL}/` },
  { claims: (login) => (login === 'ada' ? { name: 'Ada Lovelace' } : {}) },
);
const browser = await launchBrowser(t);
const ORG = 'acme';
const subjectOf = (login: string) => `${stack.issuer}#${login}`;
const apiAdmin = await bearer(PLATFORM_ADMIN);
type Tap = Parameters<typeof openPage>[0];

async function api(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) {
  const res = await stack.app.inject({ method, url, headers: apiAdmin, ...(payload ? { payload } : {}) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.statusCode === 204 ? undefined : res.json();
}
const putMember = (login: string, role: string) =>
  api('PUT', `/api/v1/tenants/${ORG}/members/${encodeURIComponent(subjectOf(login))}`, { role });
const clusterFlag = (id: string) => `/api/v1/tenants/${ORG}/clusters/${id}/feature-flags/cli_access.enabled`;
const PLATFORM_FLAG = '/api/v1/platform/feature-flags/cli_access.enabled';

await putMember('ada', 'admin');
await putMember('vic', 'viewer');
const eu = (await api('POST', `/api/v1/tenants/${ORG}/clusters`, { name: 'eu-1' })) as { id: string };
await api('POST', `/api/v1/tenants/${ORG}/clusters`, { name: 'us-1' });

async function signedIn(t: Tap, login: string): Promise<OpenedPage> {
  const opened = await openPage(t, browser, stack.consoleUrl);
  await signInAs(opened.page, login);
  return opened;
}

const cardOf = (page: Page, name: string) => page.getByRole('article', { name });
/** The text of the card's fact `label`. */
const fact = (card: Locator, label: string) =>
  card.locator('.fact', { has: card.page().locator('dt', { hasText: label }) }).locator('dd');
/** What aria-describedby points at, as a screen reader would read it. */
const description = (control: Locator) =>
  control.evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim(),
  );
/** The browser's formatting of an instant, as the page shows expiries. */
const shown = (page: Page, iso: string) =>
  page.evaluate(
    (at) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at)),
    iso,
  );
/** `at` as <input type="datetime-local" step="1"> holds it: local time, to the second. */
const localDateTime = (page: Page, at: number) =>
  // No named function inside: tsx's keepNames would wrap it in a helper the page does not have.
  page.evaluate((ms) => {
    const d = new Date(ms);
    const parts = [d.getMonth() + 1, d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds()].map((n) =>
      String(n).padStart(2, '0'),
    );
    return `${d.getFullYear()}-${parts[0]}-${parts[1]}T${parts[2]}:${parts[3]}:${parts[4]}`;
  }, at);

async function clusterRecord(id: string) {
  const { clusters } = (await api('GET', `/api/v1/tenants/${ORG}/clusters`)) as {
    clusters: { id: string; cliAccess: { enabled: boolean; record: { expiresAt: string | null } | null } }[];
  };
  return clusters.find((c) => c.id === id)?.cliAccess;
}

t.test(
  'a tenant admin switches a cluster off with a reason and an expiry, then clears the override; the kubeconfig follows',
  async (t) => {
    const opened = await signedIn(t, 'ada');
    const { page } = opened;
    const card = cardOf(page, 'eu-1');
    await fact(card, 'CLI access').getByText('On').waitFor();
    t.equal(await card.getByRole('button', { name: 'Switch on' }).count(), 0, 'while on, no Switch on');
    t.equal(await fact(card, 'ID').innerText(), eu.id);
    t.equal(await fact(card, 'Expires').innerText(), 'Never');
    t.equal(await fact(card, 'Agent').innerText(), 'Not connected');

    const link = card.getByRole('link', { name: 'Download kubeconfig' });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const kubeconfig = await readFile((await download.path()) ?? '', 'utf8');
    t.match(kubeconfig, `/clusters/${eu.id}`, 'while on, the kubeconfig downloads with the session cookie');

    await card.getByRole('button', { name: 'Switch off' }).click();
    const dialog = page.getByRole('dialog', { name: 'Switch CLI access off for cluster eu-1' });
    const submit = dialog.getByRole('button', { name: 'Switch off' });
    t.ok(await submit.isDisabled(), 'no switching off without a reason');
    // The server's reason rule, counted as the server counts, said before anything is sent.
    const reason = dialog.getByLabel(/^Reason/);
    await reason.fill('\u200b');
    t.ok(await submit.isDisabled(), 'nor with a reason of one invisible character');
    t.match(await description(reason), /The reason must be printable: no control characters/, 'and it says why');
    await reason.fill('🚧'.repeat(200));
    t.ok(await submit.isEnabled(), '200 emoji are 200 characters, as the server counts them');
    await reason.fill('maintenance window');
    await dialog.getByLabel('Clear the override after').selectOption({ label: 'Custom date and time' });
    const inAnHour = Math.floor((Date.now() + 3600_000) / 1000) * 1000;
    await dialog.getByLabel('Date and time (your local time)').fill(await localDateTime(page, inAnHour));
    await submit.click();
    await dialog.waitFor({ state: 'detached' });

    await fact(card, 'CLI access').getByText('Off').waitFor();
    t.equal(await fact(card, 'Source').innerText(), "this cluster's override");
    t.equal(await fact(card, 'Set by').innerText(), 'Ada Lovelace (tenant admin)', 'by the name she signed in with');
    t.equal(await fact(card, 'Set by').locator('[title]').getAttribute('title'), subjectOf('ada'), 'subject on hover');
    t.equal(await card.getByRole('button', { name: 'Switch off' }).count(), 0, 'while off, no Switch off');
    t.ok(await card.getByRole('button', { name: 'Switch on' }).isEnabled(), 'Switch on instead');
    t.equal(await fact(card, 'Reason').innerText(), 'maintenance window');
    const record = await clusterRecord(eu.id);
    t.equal(record?.record?.expiresAt, new Date(inAnHour).toISOString(), 'the custom local time, sent in UTC');
    t.equal(await fact(card, 'Expires').innerText(), await shown(page, new Date(inAnHour).toISOString()));
    const refusalBox = card.locator('.notice-warning');
    t.match(await refusalBox.innerText(), `(until ${await shown(page, new Date(inAnHour).toISOString())})`);
    t.notMatch(await refusalBox.innerText(), /\d{4}-\d\d-\d\dT/, 'the refusal box shows no ISO instant');
    const utc = `${new Date(inAnHour).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
    for (const time of [fact(card, 'Expires').locator('time'), refusalBox.locator('time')])
      t.equal(await time.getAttribute('title'), utc, 'UTC on hover, in the fields and the refusal alike');

    const disabled = card.getByRole('button', { name: 'Download kubeconfig' });
    t.ok(await disabled.isDisabled(), 'the kubeconfig download is disabled while access is off');
    t.match(
      await description(disabled),
      /^CLI access is disabled by the tenant's own decision for cluster .*"maintenance window"/,
    );
    t.ok(
      await card.getByText(/CLI access is disabled by the tenant's own decision/).isVisible(),
      'the message is on screen',
    );
    t.equal(await cardOf(page, 'us-1').getByRole('link', { name: 'Download kubeconfig' }).count(), 1, 'us-1 is on');
    t.same(await inspectAtEachWidth(page, 'tenant-admin'), [], 'axe: no serious or critical violations');
    await page.setViewportSize({ width: WIDTHS[0], height: 800 });

    await card.getByRole('button', { name: 'Clear override' }).click();
    const clear = page.getByRole('dialog', { name: 'Clear the override on cluster eu-1?' });
    await clear.getByRole('button', { name: 'Clear override' }).click();
    await fact(card, 'CLI access').getByText('On').waitFor();
    t.equal(await fact(card, 'Source').innerText(), 'the built-in default');
    t.equal(await fact(card, 'Expires').innerText(), 'Never');
    t.equal(await card.getByRole('button', { name: 'Clear override' }).count(), 0, 'no override left to clear');
    await card.getByRole('link', { name: 'Download kubeconfig' }).waitFor();
    t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
  },
);

t.test('a platform-wide off reaches the open page: the kubeconfig is disabled with its message', async (t) => {
  const opened = await signedIn(t, 'ada');
  const card = cardOf(opened.page, 'us-1');
  await card.getByRole('link', { name: 'Download kubeconfig' }).waitFor();
  await api('PUT', PLATFORM_FLAG, { value: false, reason: 'incident 42' });
  await fact(card, 'CLI access').getByText('Off').waitFor({ timeout: 1000 });
  t.equal(await fact(card, 'Source').innerText(), "the platform's value, set by a platform admin");
  t.equal(await fact(card, 'Set by').innerText(), 'A platform admin', 'tenants are not told which one');
  const button = card.getByRole('button', { name: 'Download kubeconfig' });
  t.ok(await button.isDisabled());
  t.match(await description(button), /set by a platform admin for the whole platform: "incident 42"/);
  await api('DELETE', PLATFORM_FLAG);
  await card.getByRole('link', { name: 'Download kubeconfig' }).waitFor({ timeout: 1000 });
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test(
  'an expiry a few seconds ahead, set in the page, switches access back on while the page stays open',
  async (t) => {
    const opened = await signedIn(t, 'ada');
    const { page } = opened;
    const card = cardOf(page, 'us-1');
    await card.getByRole('button', { name: 'Switch off' }).click();
    const dialog = page.getByRole('dialog', { name: 'Switch CLI access off for cluster us-1' });
    await dialog.getByLabel(/^Reason/).fill('short test');
    await dialog.getByLabel('Clear the override after').selectOption({ label: 'Custom date and time' });
    const soon = Math.ceil((Date.now() + 3000) / 1000) * 1000;
    await dialog.getByLabel('Date and time (your local time)').fill(await localDateTime(page, soon));
    await dialog.getByRole('button', { name: 'Switch off' }).click();
    await fact(card, 'CLI access').getByText('Off').waitFor();
    await fact(card, 'CLI access').getByText('On').waitFor({ timeout: 10_000 });
    const late = Date.now() - soon;
    t.comment(`back on ${late} ms after the expiry`);
    t.ok(Date.now() >= soon, 'not before the expiry');
    t.equal(await fact(card, 'Source').innerText(), 'the built-in default');
    t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
  },
);

t.test(
  'a tenant admin registers a cluster, sees its agent token once with the install commands, and deletes it',
  async (t) => {
    const opened = await signedIn(t, 'ada');
    const { page } = opened;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    const name = page.getByLabel(/^Cluster name/);
    await name.fill('Not A Label');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByText(/A cluster name is 1 to 63 lower-case letters/).waitFor();

    await name.fill('ap-1');
    await page.getByRole('button', { name: 'Register' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cluster ap-1 is registered' });
    await dialog.waitFor();
    const token = await dialog.getByLabel('Agent token').inputValue();
    const { rows } = await stack.app.pg.query<{ id: string; agent_token_hash: string }>(
      'SELECT id, agent_token_hash FROM clusters WHERE org = $1 AND name = $2',
      [ORG, 'ap-1'],
    );
    const id = rows[0]?.id ?? '';
    t.equal(createHash('sha256').update(token).digest('hex'), rows[0]?.agent_token_hash, 'the token shown is the one');
    const commands = await dialog.locator('pre').innerText();
    t.match(commands, 'kubectl create namespace gsp-agent');
    t.match(commands, 'create secret generic gsp-agent-token --from-literal=token="$AGENT_TOKEN"');
    t.match(commands, 'helm install gsp deploy/helm/tunnel-agent');
    t.match(commands, `--set proxyTunnelUrl=${TUNNEL_URL} \\`);
    t.match(commands, `--set clusterId=${id} \\`);
    t.match(commands, '--set agentToken.existingSecret=gsp-agent-token');

    await dialog.getByRole('button', { name: 'Copy token' }).click();
    await dialog.getByText('Token copied.').waitFor();
    t.equal(await page.evaluate(() => navigator.clipboard.readText()), token, 'Copy puts the token on the clipboard');
    t.same(await inspectAtEachWidth(page, 'register-token-dialog'), [], 'axe: no serious or critical violations');
    await page.setViewportSize({ width: WIDTHS[0], height: 800 });

    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });
    const card = cardOf(page, 'ap-1');
    await card.waitFor();
    // A write elsewhere makes the page fetch again: the token is never shown again.
    await api('PUT', clusterFlag(id), { value: true, reason: 'refetch' });
    await fact(card, 'Reason').getByText('refetch').waitFor({ timeout: 1000 });
    t.notMatch(await page.content(), token, 'the token is no longer in the page');
    const stored = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    t.notMatch(stored, token, 'nor in storage');

    await card.getByRole('button', { name: 'Delete cluster' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete cluster ap-1?' });
    t.match(await confirm.innerText(), id, 'the confirmation names the cluster and its id');
    await confirm.getByRole('button', { name: 'Delete cluster ap-1' }).click();
    await card.waitFor({ state: 'detached' });
    const { clusters } = (await api('GET', `/api/v1/tenants/${ORG}/clusters`)) as { clusters: { name: string }[] };
    t.same(clusters.map((c) => c.name).sort(), ['eu-1', 'us-1'], 'deleted in the API');
    t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
  },
);

t.test('a tenant admin adds a member with a role, changes the role and removes the member', async (t) => {
  const opened = await signedIn(t, 'ada');
  const { page } = opened;
  const newbie = subjectOf('newbie');
  const members = page.locator('.members');
  await members.getByText(subjectOf('vic')).waitFor();

  const hint = await description(page.getByLabel('User id'));
  t.match(hint, `Their id at ${stack.issuer}, where they sign in`, `the field says what to type: ${hint}`);
  t.match(hint, `They are added as ${stack.issuer}#alice`);
  await page.getByLabel('User id').fill('ünïcode');
  await page.getByRole('button', { name: 'Add member' }).click();
  const refused = await page.locator('form', { hasText: 'Add a member' }).getByRole('alert').innerText();
  t.match(refused, /subject/i, `a bad subject is refused in a sentence: ${refused}`);
  t.notMatch(refused, /[{}]/, 'never JSON');

  await page.getByLabel('User id').fill('newbie');
  await page.getByLabel('Role', { exact: true }).selectOption({ label: 'Operator' });
  await page.getByRole('button', { name: 'Add member' }).click();
  const row = members.locator('li', { hasText: newbie });
  await row.waitFor();
  t.pass('a bare user id is added qualified with the platform issuer');
  t.equal(await row.getByLabel(`Role of ${newbie}`).inputValue(), 'operator');

  await row.getByLabel(`Role of ${newbie}`).selectOption({ label: 'Viewer' });
  await row.getByRole('button', { name: 'Change role' }).click();
  const roleOf = async () =>
    (
      (await api('GET', `/api/v1/tenants/${ORG}/members`)) as { members: { subject: string; role: string }[] }
    ).members.find((m) => m.subject === newbie)?.role;
  t.equal(
    await until('the role changed', async () => ((await roleOf()) === 'viewer' ? 'viewer' : undefined)),
    'viewer',
  );
  await row.getByRole('button', { name: 'Change role' }).and(page.locator(':disabled')).waitFor();

  await row.getByRole('button', { name: 'Remove' }).click();
  const confirm = page.getByRole('dialog', { name: `Remove ${newbie} from tenant ${ORG}?` });
  await confirm.waitFor();
  t.same(await inspectAtEachWidth(page, 'remove-member-dialog'), [], 'axe: no serious or critical violations');
  await confirm.getByRole('button', { name: 'Remove member' }).click();
  await row.waitFor({ state: 'detached' });
  const after = (await api('GET', `/api/v1/tenants/${ORG}/members`)) as { members: { subject: string }[] };
  t.notOk(
    after.members.some((m) => m.subject === newbie),
    'removed in the API',
  );

  // The last admin cannot go: the refusal is a sentence in the dialog.
  await members
    .locator('li', { hasText: subjectOf('ada') })
    .getByRole('button', { name: 'Remove' })
    .click();
  const last = page.getByRole('dialog', { name: `Remove ${subjectOf('ada')} from tenant ${ORG}?` });
  await last.getByRole('button', { name: 'Remove member' }).click();
  const refusal = await last.getByRole('alert').innerText();
  t.match(refusal, /admin/, `a sentence: ${refusal}`);
  t.notMatch(refusal, /[{}]/, 'never JSON');
  await page.keyboard.press('Escape');
  await last.waitFor({ state: 'detached' });
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test('a viewer sees the same controls disabled, each saying why', async (t) => {
  const opened = await signedIn(t, 'vic');
  const { page } = opened;
  const card = cardOf(page, 'eu-1');
  await fact(card, 'CLI access').getByText('On').waitFor();
  const switchOff = card.getByRole('button', { name: 'Switch off' });
  t.ok(await switchOff.isDisabled(), 'Switch off is disabled');
  t.equal(await description(switchOff), 'Viewers cannot change CLI access; ask a tenant admin or operator.');
  t.equal(await card.getByRole('button', { name: 'Switch on' }).count(), 0, 'access is on: no Switch on');
  const rights = await page.locator('.role').innerText();
  t.notMatch(rights, /everything/, `the viewer is not told they see everything: ${rights}`);
  t.match(rights, /you see its clusters and their CLI access/);
  for (const name of ['Download kubeconfig', 'Delete cluster']) {
    const button = card.getByRole('button', { name });
    t.ok(await button.isDisabled(), `${name} is disabled`);
    t.match(await description(button), /^Viewers cannot download a kubeconfig or delete a cluster/);
  }
  t.ok(await card.getByText('Viewers cannot change CLI access; ask a tenant admin or operator.').isVisible());
  const register = page.getByRole('button', { name: 'Register' });
  t.ok(await register.isDisabled(), 'Register is disabled');
  t.equal(await description(register), 'Viewers cannot register clusters; ask a tenant admin or operator.');
  t.ok(await page.getByText("Only the tenant's admins see and manage its members.").isVisible());
  t.same(await inspectAtEachWidth(page, 'tenant-viewer'), [], 'axe: no serious or critical violations');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

/** Presses Tab (or Shift+Tab) until the focused element is `wanted` (unless it is already); at most 80 presses. */
async function tabTo(page: Page, wanted: { text: string; card?: string }, key = 'Tab'): Promise<void> {
  for (let i = 0; i < 80; i++) {
    if (i > 0) await page.keyboard.press(key);
    const here = await page.evaluate(() => {
      const el = document.activeElement;
      return {
        text: el?.textContent?.trim() ?? '',
        card: el?.closest('article')?.querySelector('h4')?.textContent ?? undefined,
      };
    });
    if (here.text === wanted.text && (wanted.card === undefined || here.card === wanted.card)) return;
  }
  throw new Error(`${key} never reached ${JSON.stringify(wanted)}`);
}

const focusedLabel = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el instanceof HTMLInputElement || el instanceof HTMLSelectElement
      ? (el.labels?.[0]?.textContent ?? '')
      : (el?.textContent ?? '');
  });

t.test('with the keyboard only, a tenant admin switches a cluster off and on again', async (t) => {
  const opened = await signedIn(t, 'ada');
  const { page } = opened;
  const card = cardOf(page, 'eu-1');
  await fact(card, 'CLI access').getByText('On').waitFor();

  await tabTo(page, { text: 'Switch off', card: 'eu-1' });
  await page.keyboard.press('Enter');
  const off = page.getByRole('dialog', { name: 'Switch CLI access off for cluster eu-1' });
  await off.waitFor();
  t.match(await focusedLabel(page), /^Reason/, 'the dialog opens on its first field');
  await page.keyboard.type('keyboard only');
  await page.keyboard.press('Enter');
  await off.waitFor({ state: 'detached' });
  await fact(card, 'CLI access').getByText('Off').waitFor();
  t.equal(await fact(card, 'Reason').innerText(), 'keyboard only');

  t.equal(
    await focusedLabel(page),
    'Switch on',
    'focus is back on the button that opened the dialog, which now switches on',
  );
  await page.keyboard.press('Tab');
  t.equal(await focusedLabel(page), 'Clear override');
  await page.keyboard.press('Shift+Tab');
  t.equal(await focusedLabel(page), 'Switch on', 'Shift+Tab goes back to Switch on');
  await page.keyboard.press('Space');
  const on = page.getByRole('dialog', { name: 'Switch CLI access on for cluster eu-1' });
  await on.waitFor();
  await tabTo(page, { text: 'Switch on' });
  await page.keyboard.press('Space');
  await on.waitFor({ state: 'detached' });
  await fact(card, 'CLI access').getByText('On').waitFor();
  t.equal(await fact(card, 'Source').innerText(), "this cluster's override", 'an override switched on');

  await tabTo(page, { text: 'Clear override', card: 'eu-1' });
  await page.keyboard.press('Enter');
  const clear = page.getByRole('dialog', { name: 'Clear the override on cluster eu-1?' });
  await clear.waitFor();
  await tabTo(page, { text: 'Clear override' }, 'Shift+Tab');
  await page.keyboard.press('Enter');
  await clear.waitFor({ state: 'detached' });
  await fact(card, 'Source').getByText('the built-in default').waitFor();
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});
