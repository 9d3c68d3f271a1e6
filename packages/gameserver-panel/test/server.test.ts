/**
 * A game server's page in a real browser against a real control plane on kube-lite: the console
 * in its terminal, actions, logs, snapshots, and what a viewer may not do. The pure parts (the
 * terminal's line discipline, the log stream's parsing) are specified first.
 */
import t from 'tap';
import type { Locator, Page } from 'playwright-core';
import { inspectAtEachWidth, launchBrowser, openPage, pageProblems } from '@gsp/test-kit/browser';
import type { OpenedPage, Tap } from '@gsp/test-kit/browser';
import { LineDiscipline } from '../src/features/server/line-discipline.js';
import { paletteColours } from '../src/features/server/true-color.js';
import { MAX_LOG_LINES, appendBounded, parseEvents } from '../src/features/server/log-lines.js';
import { ARTEFACTS_DIR, BASIC_ADMIN, signInApiKey, signInBasic, startPanelStack, until } from './stack.js';

t.test('the line discipline echoes, edits with Backspace and sends whole lines', async (t) => {
  const line = new LineDiscipline();
  t.same(line.type('say hx\x7fi\r'), { echo: 'say hx\b \bi\r\n', lines: ['say hi\n'] });
  t.same(line.type('ab\x1b[Dc\x1bOA'), { echo: 'abc', lines: [] }, 'arrow keys are ignored');
  t.same(line.type('\x03'), { echo: '^C\r\n', lines: [] }, 'Ctrl+C drops the line');
  t.same(line.type('one\r\ntwo\npart').lines, ['one\n', 'two\n'], 'a paste sends each of its lines');
  t.equal(line.pending, 'part', 'the unfinished line is kept');
});

t.test('24-bit colours are written as palette colours, which the DOM renderer styles by class', async (t) => {
  t.equal(paletteColours('\x1b[1;38;2;255;0;0mred\x1b[0m'), '\x1b[1;38;5;196mred\x1b[0m');
  t.equal(paletteColours('\x1b[48;2;0;0;255;38;5;10mx'), '\x1b[48;5;21;38;5;10mx');
  t.equal(paletteColours('\x1b[32mgreen\x1b[0m plain'), '\x1b[32mgreen\x1b[0m plain', 'palette colours stay');
});

t.test('the log stream is parsed by event and kept to its last 2,000 lines', async (t) => {
  const { events, rest } = parseEvents('data: one\n\ndata: two\n\nevent: end\ndata: end of log\n\ndata: thr');
  t.same(events, [
    { event: 'message', data: 'one' },
    { event: 'message', data: 'two' },
    { event: 'end', data: 'end of log' },
  ]);
  t.equal(rest, 'data: thr');
  const many = Array.from({ length: MAX_LOG_LINES }, (_, i) => String(i));
  t.same(appendBounded(many, ['new']).slice(-2), [String(MAX_LOG_LINES - 1), 'new']);
  t.equal(appendBounded(many, ['new']).length, MAX_LOG_LINES);
});

const stack = await startPanelStack(t);
const { app } = stack;
const SERVER = 'world-1';
const PAGE_HASH = `#/servers/games/${SERVER}`;

/** A profile with storage, so the server has snapshots; its hooks say what they do on the console. */
const WORLD = {
  image: 'example/world:1.0',
  ports: [{ name: 'game', containerPort: 7777 }],
  storage: { size: '1Gi', mountPath: '/data' },
  snapshot: { preCommand: ['say', 'saving'], postCommand: ['say', 'saved'] },
  actions: { greet: { command: ['echo'], timeoutSeconds: 5, description: 'Echoes its arguments.' } },
};

const put = await app.inject({ method: 'PUT', url: '/api/v1/profiles/world', headers: BASIC_ADMIN, payload: WORLD });
if (put.statusCode !== 201) throw new Error(`profile world: ${put.statusCode} ${put.body}`);
const created = await app.inject({
  method: 'POST',
  url: '/api/v1/gameservers/games',
  headers: BASIC_ADMIN,
  payload: { profile: 'world', name: SERVER },
});
if (created.statusCode !== 201) throw new Error(`game server: ${created.statusCode} ${created.body}`);
await until('the game server Ready', async () => {
  const res = await app.inject({ url: `/api/v1/gameservers/games/${SERVER}`, headers: BASIC_ADMIN });
  return res.statusCode === 200 && (res.json() as { state: string }).state === 'Ready';
});

const browser = await launchBrowser(t);

/**
 * The terminal's text, its rows joined (xterm pads cells with no-break spaces). xterm does not
 * render while the terminal is out of view, so it is scrolled into view, as a person would look.
 */
async function terminalText(page: Page): Promise<string> {
  const rows = page.locator('[data-testid="terminal"] .xterm-rows');
  await rows.scrollIntoViewIfNeeded();
  return (await rows.innerText()).replace(/\u00a0/g, ' ');
}

async function waitForTerminal(page: Page, pattern: RegExp): Promise<void> {
  await until(`the terminal to show ${pattern}`, async () => pattern.test(await terminalText(page)), 10_000);
}

/** Opens the server's page signed in with a new API key of `role` (named `keyName`, if given). */
async function openAs(t: Tap, role: string, keyName?: string): Promise<OpenedPage> {
  const opened = await openPage(t, browser, stack.panelUrl);
  await signInApiKey(opened.page, await stack.createApiKey(role, keyName));
  await opened.page.goto(`${stack.panelUrl}${PAGE_HASH}`);
  await opened.page.getByRole('heading', { name: `Game server games/${SERVER}` }).waitFor();
  await opened.page.getByTestId('server-state').waitFor();
  return opened;
}

t.test('an operator uses the console, runs allocate, follows the logs and takes a snapshot', async (t) => {
  const opened = await openAs(t, 'operator');
  const { page } = opened;

  await page.getByRole('button', { name: 'Open console' }).click();
  await page
    .getByTestId('console-status')
    .getByText(/Connected/)
    .waitFor();
  await waitForTerminal(page, /console of games\/world-1/);
  await page.keyboard.type('say hi');
  await page.keyboard.press('Enter');
  await waitForTerminal(page, /\[server\] hi/);
  t.pass('say hi answers [server] hi in the terminal');

  await page.getByRole('button', { name: 'Follow' }).click();
  await page.getByText(/Following the log/).waitFor();
  await page.locator('.xterm-helper-textarea').focus();
  await page.keyboard.type('say in the log');
  await page.keyboard.press('Enter');
  await until('the log line', async () => /\[say\] in the log/.test(await page.getByTestId('log').innerText()), 10_000);
  t.pass('a line the game writes appears in the followed log');
  await page.getByRole('button', { name: 'Stop' }).click();
  await page.getByText(/The follow ended: you stopped it/).waitFor();

  await page.getByRole('button', { name: 'allocate', exact: true }).click();
  await page.getByText(/allocate: the game server is now Allocated/).waitFor();
  await until(
    'the state Allocated',
    async () => (await page.getByTestId('server-state').innerText()) === 'Allocated',
    10_000,
  );
  await waitForTerminal(page, /\[state: Allocated\]/);
  t.pass('allocate: the facts and the console show Allocated');
  t.same(await inspectAtEachWidth(page, 'server-console', ARTEFACTS_DIR), [], 'axe: none serious or critical');

  const now = await disabledWithWhy(page, ['allocate', 'reserve']);
  t.same(
    now,
    {
      allocate: 'Only a Ready game server can be allocated; it is Allocated.',
      reserve: 'Only a Ready game server can be reserved; it is Allocated.',
    },
    'on an Allocated server, allocate and reserve are disabled, each saying why',
  );
  t.equal(await page.getByRole('button', { name: 'greet', exact: true }).isDisabled(), false, 'greet still runs');

  const args = page.getByLabel('Arguments of greet, one a line');
  await args.fill('first line\nsecond line\nthird line');
  const shown = await args.evaluate((el) => ({ scroll: el.scrollHeight, client: el.clientHeight, top: el.scrollTop }));
  t.ok(
    shown.scroll <= shown.client && shown.top === 0,
    `every line of the arguments is in view (${JSON.stringify(shown)})`,
  );
  await page.getByRole('button', { name: 'greet', exact: true }).click();
  const answer = page.locator('.action-answer');
  await answer.getByText('first line second line third line').waitFor();
  const said = await answer.locator('p').first().innerText();
  t.match(said, /^greet exited with code 0 after (less than 1 ms|\d+ ms|\d+\.\d s)\.$/, said);
  t.notMatch(said, /0\.0 s/, 'a quick command is not said to take 0.0 s');
  t.same(await inspectAtEachWidth(page, 'server-actions', ARTEFACTS_DIR), [], 'axe: the actions with their reasons');
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.getByRole('button', { name: 'Take a snapshot' }).click();
  await page.getByText(/The pre-snapshot command exited with code 0/).waitFor();
  const hook = await page.getByText(/The pre-snapshot command exited with code 0/).innerText();
  t.notMatch(hook, /after 0\.0 s/, `the hook's time is readable: ${hook}`);
  const row = page.getByRole('row', { name: new RegExp(`^${SERVER}-\\d{14}`) });
  await until('the snapshot ready', async () => /Ready/.test(await row.innerText()), 15_000);
  t.pass('the snapshot taken becomes ready on the page, with its hooks shown');
  t.same(await inspectAtEachWidth(page, 'snapshots', ARTEFACTS_DIR), [], 'axe: none serious or critical');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test(
  'revoking the key closes the open console within 2 s, saying why, and the next click asks to sign in',
  async (t) => {
    const keyName = 'operator-to-revoke';
    const opened = await openAs(t, 'operator', keyName);
    const { page } = opened;
    await page.getByRole('button', { name: 'Open console' }).click();
    await page
      .getByTestId('console-status')
      .getByText(/Connected/)
      .waitFor();
    await page.keyboard.press('Tab');
    t.notOk(
      await page.evaluate(() => document.activeElement?.classList.contains('xterm-helper-textarea')),
      'Tab moves focus out of the terminal (no keyboard trap)',
    );
    const revokedAt = Date.now();
    await stack.revokeApiKey(keyName);
    // The console's own revocation check and the panel session's end race to close it: either reason names it.
    await page.getByText(/^The console closed: [^.]*revoked[^.]*\.$/).waitFor({ timeout: 2000 });
    t.ok(Date.now() - revokedAt < 2000, `closed with the reason in ${Date.now() - revokedAt} ms`);
    t.match(await page.getByTestId('console-status').innerText(), /Closed/);
    // The server is Allocated by now, so allocate is disabled; greet runs in any running state.
    await page.getByRole('button', { name: 'greet', exact: true }).click();
    await page.getByText('Your session has ended; sign in again.').waitFor();
    t.pass('the next action leads to the sign-in view');
    t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
  },
);

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

/** The disabled buttons of the page and whether each is described by a visible sentence saying why. */
async function disabledWithWhy(page: Page, names: (string | RegExp)[]): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const name of names) {
    const button = page.getByRole('button', { name, exact: typeof name === 'string' }).first();
    const why = (await button.getAttribute('aria-describedby')) ?? '';
    const text = why === '' ? '' : await page.locator(`[id="${why.split(' ').at(-1) ?? ''}"]`).innerText();
    found[String(name)] = (await button.isDisabled()) ? text : 'enabled';
  }
  return found;
}

t.test('a viewer sees every control that changes the server disabled, each saying why', async (t) => {
  const opened = await openAs(t, 'viewer');
  const { page } = opened;
  await page.getByRole('row', { name: new RegExp(`^${SERVER}-`) }).waitFor();
  const names = ['allocate', 'reserve', 'restart', 'greet', 'shutdown', 'Open console', 'Take a snapshot'];
  const found = await disabledWithWhy(page, [...names, /^Restore/, /^Delete/]);
  for (const [name, why] of Object.entries(found))
    t.match(why, /^(Restore: |Delete: )?Your role \(viewer\) cannot .+; ask an? .+\.$/, `${name}: ${why}`);
  t.equal(await page.getByRole('button', { name: 'Follow' }).isDisabled(), false, 'a viewer may read the logs');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test(
  'a server whose profile has no storage cannot be snapshotted, and its page and the list give its age one way',
  async (t) => {
    const made = await app.inject({
      method: 'POST',
      url: '/api/v1/gameservers/games',
      headers: BASIC_ADMIN,
      payload: { profile: 'lobby', name: 'lobby-1' },
    });
    t.equal(made.statusCode, 201, 'a server of profile lobby, which has no storage');
    const opened = await openPage(t, browser, stack.panelUrl);
    const { page } = opened;
    await signInApiKey(page, await stack.createApiKey('operator'));
    await page.goto(`${stack.panelUrl}#/servers/games/lobby-1`);
    await page.getByTestId('server-state').waitFor();
    const take = page.getByRole('button', { name: 'Take a snapshot' });
    await until('the profile read', async () => !(await description(take)).startsWith('Reading'));
    t.ok(await take.isDisabled(), 'Take a snapshot is disabled');
    t.equal(await description(take), 'Its profile lobby has no storage: there is nothing to snapshot.', 'saying why');
    const restart = page.getByRole('button', { name: 'restart', exact: true });
    t.ok(await restart.isDisabled(), 'restart is disabled');
    t.match(await description(restart), /Its profile lobby sets no restart command/, 'saying why');
    t.same(await inspectAtEachWidth(page, 'server-no-storage', ARTEFACTS_DIR), [], 'axe: none serious or critical');
    await page.setViewportSize({ width: 1280, height: 800 });

    const onPage = await page.locator('.fact').filter({ hasText: 'Age' }).locator('time').innerText();
    await page.getByRole('link', { name: 'All game servers' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'lobby-1', exact: true }) });
    const inList = await row.locator('time').innerText();
    const AGE = /^(under 1 min|\d+ (min|h|d))$/;
    t.match(onPage, AGE, `the page says ${onPage}`);
    t.match(inList, AGE, `the list says ${inList}`);
    t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
  },
);

t.test('an admin restores a snapshot into a new server and is linked to it', async (t) => {
  const opened = await openPage(t, browser, stack.panelUrl);
  const { page } = opened;
  await signInBasic(page);
  await page.goto(`${stack.panelUrl}${PAGE_HASH}`);
  await page
    .getByRole('button', { name: /^Restore/ })
    .first()
    .click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name of the new game server').fill('world-restored');
  await dialog.getByRole('button', { name: 'Restore into a new server' }).click();
  await dialog.getByRole('link', { name: 'games/world-restored' }).click();
  await page.getByRole('heading', { name: 'Game server games/world-restored' }).waitFor();
  await page.getByTestId('server-state').waitFor();
  t.pass('the new server has its page');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});
