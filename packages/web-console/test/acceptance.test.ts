/**
 * The console end to end, on every real part: the API server (PostgreSQL, Redis, its outbox relay
 * and the console's sign-in against oidc-provider), the cluster proxy, a tunnel agent on
 * kube-lite and kubectl. A platform admin switches kubectl access off in one browser; a tenant
 * admin's page, open in another, shows it within a second; kubectl prints the reason.
 */
import t from 'tap';
import { CLIENT_ID, CLIENT_SECRET, putMember, startProvider } from '@gsp/api-server/testing';
import {
  bearer,
  freePort,
  kubectl,
  ORG,
  PLATFORM_ADMIN,
  redisPrefix,
  startStack,
  TEST_REDIS_URL,
  until,
} from '@gsp/cluster-proxy/testing';
import type { Stack } from '@gsp/cluster-proxy/testing';
import { assertBuilt, DIST_DIR, inspectAtEachWidth, launchBrowser, openPage, pageProblems } from './browser.js';
import type { OpenedPage } from './browser.js';
import { signInAs } from './live-stack.js';

assertBuilt();
const PLATFORM_ID = 'gsp-acceptance';
const apiPort = await freePort();
const consoleUrl = `http://127.0.0.1:${apiPort}/console/`;
const issuer = await startProvider(t, () => `${consoleUrl}auth/callback`);
// One Redis prefix for the API server and the proxy; the proxy's caches live a minute, so only an event can explain
// a fast refusal.
const redis = { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() };
const stack: Stack = await startStack(t, {
  clusters: 1,
  apiPort,
  backoffMaxMs: 200,
  proxyEnv: { ...redis, SERVICE_CACHE_FLAGS_TTL: '60s' },
  apiEnv: {
    ...redis,
    AUTH_OIDC_ISSUER_URL: issuer,
    AUTH_OIDC_AUDIENCE: 'gsp-api',
    PLATFORM_ADMINS: `${PLATFORM_ADMIN},${issuer}#root`,
    PLATFORM_ID,
    CONSOLE_OIDC_CLIENT_ID: CLIENT_ID,
    CONSOLE_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    CONSOLE_PUBLIC_URL: consoleUrl,
    CONSOLE_DIST_DIR: DIST_DIR,
  },
});
const [cluster] = stack.clusters as [Stack['clusters'][0]];
const admin = await bearer(PLATFORM_ADMIN);
const seeded = await putMember(stack.api.app, ORG, encodeURIComponent(`${issuer}#tara`), 'admin', admin);
if (seeded.statusCode !== 200) throw new Error(`seeding tara: ${seeded.statusCode} ${seeded.body}`);
await until('the agent to connect', () => (cluster.agent.connected ? true : undefined));
const browser = await launchBrowser(t);

async function signedIn(t: Tap, login: string): Promise<OpenedPage> {
  const opened = await openPage(t, browser, consoleUrl);
  await signInAs(opened.page, login);
  return opened;
}
type Tap = Parameters<typeof openPage>[0];

/** The card of the stack's cluster on a tenant member's page. */
const card = (opened: OpenedPage) => opened.page.getByRole('article', { name: 'c0' });
const fact = async (opened: OpenedPage, label: string): Promise<string> =>
  card(opened)
    .locator('.fact', { has: opened.page.locator('dt', { hasText: new RegExp(`^${label}$`) }) })
    .locator('dd')
    .innerText();

t.test("the agent's connected state flips on an open page within 1 s when it stops and starts", async (t) => {
  const tara = await signedIn(t, 'tara');
  await card(tara)
    .getByText(/^Connected since/)
    .waitFor();

  let since = performance.now();
  await cluster.agent.stop();
  await card(tara).getByText('Not connected').waitFor({ timeout: 1000 });
  const down = performance.now() - since;
  since = performance.now();
  cluster.agent = await stack.startAgent(cluster);
  await card(tara)
    .getByText(/^Connected since/)
    .waitFor({ timeout: 1000 });
  const up = performance.now() - since;
  t.comment(`agent stopped → page ${down.toFixed(0)} ms; agent started → page ${up.toFixed(0)} ms`);
  t.ok(down < 1000 && up < 1000, 'both within 1 s');
  t.same(await pageProblems(tara), [], 'no CSP violation, no page error');
});

t.test(
  'a platform admin switches access off with a reason and an expiry; ' +
    'the tenant admin’s open page shows it within 1 s, its kubeconfig button is disabled, ' +
    'and kubectl prints the reason',
  async (t) => {
    const kubeconfig = await cluster.kubeconfig();
    const tara = await signedIn(t, 'tara');
    const root = await signedIn(t, 'root');
    await card(tara)
      .getByText(/^Connected since/)
      .waitFor();
    t.equal(await fact(tara, 'CLI access'), 'On');
    await card(tara).getByRole('link', { name: 'Download kubeconfig' }).waitFor();

    await root.page.getByRole('button', { name: 'Switch off' }).click();
    const dialog = root.page.getByRole('dialog', { name: 'Switch CLI access off for the whole platform' });
    await dialog.getByText('1 cluster loses kubectl access; 1 tunnel is open now.').waitFor();
    await dialog.getByLabel(/^Reason/).fill('incident 42');
    await dialog.getByLabel('Switch back on after').selectOption({ label: '10 minutes' });
    await dialog.getByLabel(/To confirm/).fill(PLATFORM_ID);
    // Whatever fails below, the next test starts with access on again.
    t.teardown(async () => void (await stack.setSwitch(null)));
    const since = performance.now();
    await dialog.getByRole('button', { name: 'Switch off for everyone' }).click();

    await card(tara).locator('dd', { hasText: /^Off$/ }).waitFor({ timeout: 1000 });
    const ms = performance.now() - since;
    t.comment(`platform off in one browser → the tenant admin's page: ${ms.toFixed(0)} ms`);
    t.ok(ms < 1000, 'within 1 s, without a reload');
    t.match(await fact(tara, 'Source'), /platform/);
    t.equal(await fact(tara, 'Reason'), 'incident 42');
    t.equal(await fact(tara, 'Set by'), 'A platform admin', 'who, as a tenant is told: platform admins are not named');
    t.notMatch(await fact(tara, 'Expires'), /Never/, 'until when');

    const download = card(tara).getByRole('button', { name: 'Download kubeconfig' });
    t.ok(await download.isDisabled(), 'the kubeconfig button is disabled');
    const refusal =
      `CLI access is disabled by platform policy for cluster ${cluster.id}: ` +
      'set by a platform admin for the whole platform: "incident 42"';
    t.match(await card(tara).innerText(), refusal, 'with the policy message');

    const refused = await until(
      'kubectl to be refused',
      async () => {
        const r = await kubectl(kubeconfig, ['get', 'namespaces']);
        return r.code !== 0 ? r : undefined;
      },
      5000,
      50,
    );
    t.match(refused.stderr, refusal, 'kubectl prints the reason');
    t.match(refused.stderr, /\(until 20\d\d-/, 'and until when');

    t.same(
      await inspectAtEachWidth(tara.page, 'tenant-admin-access-off'),
      [],
      'axe: no serious or critical violations',
    );
    for (const o of [tara, root]) t.same(await pageProblems(o), [], 'no CSP violation, no page error');
  },
);

t.test('an override set in the page 3 s ahead is cleared at its expiry while the page stays open', async (t) => {
  const tara = await signedIn(t, 'tara');
  await card(tara).locator('dd', { hasText: /^On$/ }).waitFor();
  await card(tara).getByRole('button', { name: 'Switch off' }).click();
  const dialog = tara.page.getByRole('dialog', { name: 'Switch CLI access off for cluster c0' });
  await dialog.getByLabel(/^Reason/).fill('three seconds');
  await dialog.getByLabel('Clear the override after').selectOption({ label: 'Custom date and time' });
  // datetime-local is the browser's local time, to the second (the browser runs with this process's TZ).
  const at = new Date(Date.now() + 3000);
  const pad = (n: number) => String(n).padStart(2, '0');
  const local =
    `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}` +
    `T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
  await dialog.getByLabel('Date and time (your local time)').fill(local);
  await dialog.getByRole('button', { name: 'Switch off' }).click();
  await card(tara).locator('dd', { hasText: /^Off$/ }).waitFor({ timeout: 2000 });
  t.equal(await fact(tara, 'Reason'), 'three seconds');

  const res = await stack.api.app.inject({
    url: `/api/v1/tenants/${ORG}/clusters/${cluster.id}/access`,
    headers: admin,
  });
  const expiresAt = Date.parse(res.json<{ cliAccess: { record: { expiresAt: string } } }>().cliAccess.record.expiresAt);
  await card(tara).locator('dd', { hasText: /^On$/ }).waitFor({ timeout: 10_000 });
  const late = Date.now() - expiresAt;
  t.comment(`the page showed access back on ${late} ms after expiresAt`);
  t.ok(late < 2000, 'soon after the expiry, without a reload');
  t.equal(await fact(tara, 'Set by'), 'Nobody (the default applies)');
  t.same(await pageProblems(tara), [], 'no CSP violation, no page error');
});
