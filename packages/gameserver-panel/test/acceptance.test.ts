/**
 * Issue 27's acceptance, end to end in the browser, on one stack: an admin signed in through the
 * identity provider's login page creates a server and sees it become Ready; an operator's open
 * console closes when an admin revokes its key from another browser context; and the security
 * items (no credential a script can read, cross-site writes refused, the console ticket never
 * logged, the CSP present and kept).
 */
import t from 'tap';
import type { Page } from 'playwright-core';
import { launchBrowser, openPage, pageProblems } from '@gsp/test-kit/browser';
import type { Tap } from '@gsp/test-kit/browser';
import { LogCapture } from '@gsp/control-plane/testing';
import { BASIC_ADMIN, signInApiKey, signInBasic, signInOidc, startPanelStack, until } from './stack.js';

const logs = new LogCapture();
const stack = await startPanelStack(t, {}, { logs });
const browser = await launchBrowser(t);

const row = (page: Page, name: string) =>
  page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });

/** Creates `name` from `arena` in `games` through the API and waits until it is Ready. */
async function readyServer(name: string): Promise<void> {
  const res = await stack.app.inject({
    method: 'POST',
    url: '/api/v1/gameservers/games',
    headers: BASIC_ADMIN,
    payload: { profile: 'arena', name },
  });
  if (res.statusCode !== 201) throw new Error(`creating ${name}: ${res.statusCode} ${res.body}`);
  await until(`${name} Ready`, async () => {
    const got = await stack.app.inject({ url: `/api/v1/gameservers/games/${name}`, headers: BASIC_ADMIN });
    return got.statusCode === 200 && (got.json() as { state: string }).state === 'Ready';
  });
}

/** Opens `name`'s page signed in with a new API key of `role`, and opens its console. */
async function consoleAs(t: Tap, role: string, keyName: string, name: string) {
  const opened = await openPage(t, browser, stack.panelUrl);
  await signInApiKey(opened.page, await stack.createApiKey(role, keyName));
  await opened.page.goto(`${stack.panelUrl}#/servers/games/${name}`);
  await opened.page.getByRole('button', { name: 'Open console' }).click();
  await opened.page
    .getByTestId('console-status')
    .getByText(/Connected/)
    .waitFor();
  return opened;
}

t.test('an admin signs in through the identity provider, creates a server and sees it Ready', async (t) => {
  const opened = await openPage(t, browser, stack.panelUrl);
  const { page } = opened;
  await signInOidc(page, 'admin');
  t.equal(await page.locator('header .who').innerText(), 'admin (admin)', 'signed in with the mapped role');
  await page.getByRole('button', { name: 'Create a game server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create a game server' });
  await dialog.getByLabel('Profile').selectOption('arena');
  await dialog.getByLabel('Namespace').fill('games');
  await dialog.getByLabel('Name (optional)').fill('oidc-made');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await dialog.waitFor({ state: 'detached' });
  const created = row(page, 'oidc-made');
  await created.getByText('Ready', { exact: true }).waitFor({ timeout: 15_000 });
  t.pass('the new server shows Ready in the open list, without a reload');
  t.same(await pageProblems(opened), [], 'no CSP violation, no page error');
});

t.test("revoking the operator's key in another browser closes its console within 2 s", async (t) => {
  await readyServer('revoke-me');
  const operator = await consoleAs(t, 'operator', 'operator-revoked', 'revoke-me');
  const admin = await openPage(t, browser, stack.panelUrl);
  t.not(admin.page.context(), operator.page.context(), 'two browser contexts, two sessions');
  await signInBasic(admin.page);
  await admin.page.goto(`${stack.panelUrl}#/apikeys`);
  await admin.page.getByRole('button', { name: 'Revoke operator-revoked' }).click();
  const confirm = admin.page.getByRole('dialog', { name: 'Revoke API key operator-revoked?' });
  await confirm.getByRole('button', { name: 'Revoke API key operator-revoked' }).click();
  const revokedAt = Date.now();
  const reason = operator.page.getByText(/^The console closed: [^.]*revoked[^.]*\.$/);
  await reason.waitFor({ timeout: 2000 });
  const ms = Date.now() - revokedAt;
  t.ok(ms < 2000, `the console closed with the reason shown ${ms} ms after the revocation was confirmed`);
  await operator.page.getByRole('button', { name: 'allocate', exact: true }).click();
  await operator.page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.pass("the operator's next click is sent to sign-in");
  t.same(await pageProblems(operator), [], 'no CSP violation, no page error');
});

t.test('no credential a script can read, and the session cookie is HttpOnly and SameSite=Strict', async (t) => {
  for (const signIn of [
    (page: Page) => signInOidc(page, 'operator'),
    (page: Page) => signInBasic(page),
    async (page: Page) => signInApiKey(page, await stack.createApiKey('viewer')),
  ]) {
    const { page } = await openPage(t, browser, stack.panelUrl);
    await signIn(page);
    t.same(
      await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]),
      [0, 0, ''],
      'nothing in localStorage, sessionStorage or a script-readable cookie',
    );
    const cookies = await page.context().cookies(stack.origin);
    const session = cookies.find((c) => c.name === 'gsp_panel');
    t.match(session, { httpOnly: true, sameSite: 'Strict', path: '/' }, 'the session cookie');
  }
});

t.test('a cross-site POST carrying the session cookie is refused with 403', async (t) => {
  await readyServer('cross-site');
  const { page } = await openPage(t, browser, stack.panelUrl);
  await signInBasic(page);
  const cookie = (await page.context().cookies(stack.origin)).find((c) => c.name === 'gsp_panel');
  if (cookie === undefined) throw new Error('no session cookie');
  const post = (headers: Record<string, string>) =>
    fetch(`${stack.origin}/api/v1/gameservers/games/cross-site/actions/allocate`, {
      method: 'POST',
      headers: { cookie: `gsp_panel=${cookie.value}`, 'content-type': 'application/json', ...headers },
      body: '{}',
    });
  const foreign = await post({ origin: 'http://attacker.example', 'x-gsp-panel': '1' });
  t.equal(foreign.status, 403, 'from another origin, even with the header');
  t.match(((await foreign.json()) as { detail: string }).detail, /origin/);
  t.equal((await post({ origin: 'http://attacker.example' })).status, 403, 'a plain cross-site form post');
  t.equal((await post({})).status, 403, 'without the panel header');
  const state = await stack.app.inject({ url: '/api/v1/gameservers/games/cross-site', headers: BASIC_ADMIN });
  t.equal((state.json() as { state: string }).state, 'Ready', 'nothing was allocated');
});

t.test('the console ticket never appears unredacted in the log, and the CSP holds', async (t) => {
  await readyServer('ticketed');
  const opened = await openPage(t, browser, stack.panelUrl);
  const sockets: string[] = [];
  opened.page.on('websocket', (ws) => sockets.push(ws.url()));
  await signInApiKey(opened.page, await stack.createApiKey('operator'));
  await opened.page.goto(`${stack.panelUrl}#/servers/games/ticketed`);
  await opened.page.getByRole('button', { name: 'Open console' }).click();
  await opened.page
    .getByTestId('console-status')
    .getByText(/Connected/)
    .waitFor();
  t.equal(sockets.length, 1, 'one console socket');
  const ticket = new URL(sockets[0] ?? 'ws://x/').searchParams.get('ticket') ?? '';
  t.ok(ticket.length >= 20, 'the socket was opened with a ticket');
  await until('the upgrade logged', async () => logs.text.includes('ticket=[REDACTED]'));
  t.notOk(logs.text.includes(ticket), 'the application log never holds the ticket');
  t.notOk(stack.audit.text.join('').includes(ticket), 'nor does the audit');

  const panel = await fetch(stack.panelUrl);
  const csp = panel.headers.get('content-security-policy') ?? '';
  t.match(csp, /default-src 'none'/, 'the CSP is sent with the page');
  t.match(csp, /script-src 'self'/);
  t.match(csp, /style-src 'self'/);
  t.notMatch(csp, /unsafe-inline|unsafe-eval/, 'and allows no inline script or style');
  t.same(await pageProblems(opened), [], 'and the page, console open, caused no CSP violation');
});
