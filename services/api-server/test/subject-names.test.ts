import t from 'tap';
import { bearer, PLATFORM_ADMIN, registerCluster } from './helper.js';
import { Browser } from '@gsp/test-kit/oidc';
import { signIn, startConsoleStack } from './console-auth-stack.js';
import type { ConsoleStack } from './console-auth-stack.js';

/*
 * People are shown by the name their identity provider gave at their last console sign-in, where
 * the platform knows it: the members list and "Set by" of a switch. Rights still follow subjects.
 */
const NAMES = new Map<string, Record<string, unknown>>([
  ['ada', { name: 'Ada Lovelace' }],
  ['root', { name: 'Platform Root' }],
]);

async function signedIn(
  stack: ConsoleStack,
  login: string,
): Promise<(path: string, init?: RequestInit) => Promise<Response>> {
  const browser = new Browser();
  const { response } = await signIn(browser, stack, login);
  if (response.status !== 303) throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  const origin = new URL(stack.publicUrl).origin;
  return (path, init = {}) =>
    browser.fetch(`${stack.front}${path}`, {
      ...init,
      headers: { 'x-gsp-console': '1', origin, 'content-type': 'application/json', ...init.headers },
    });
}

t.test('names from console sign-ins', async (t) => {
  const stack = await startConsoleStack(t, { replicas: 1, provider: { claims: (l) => NAMES.get(l) ?? {} } });
  const app = stack.replicas[0]!.app;
  const admin = await bearer(PLATFORM_ADMIN);
  const member = (login: string) => `/api/v1/tenants/acme/members/${encodeURIComponent(`${stack.issuer}#${login}`)}`;
  for (const [login, role] of [
    ['ada', 'admin'],
    ['vic', 'viewer'],
  ] as const) {
    const res = await app.inject({ method: 'PUT', url: member(login), headers: admin, payload: { role } });
    t.equal(res.statusCode, 200, res.body);
  }
  const { id } = await registerCluster(app, 'acme', 'eu-1');
  const ada = await signedIn(stack, 'ada');

  t.test('a member who signed in is listed by their name; one who never did, by subject only', async (t) => {
    const res = await ada('/api/v1/tenants/acme/members');
    t.equal(res.status, 200);
    t.same(await res.json(), {
      members: [
        { subject: `${stack.issuer}#ada`, role: 'admin', name: 'Ada Lovelace' },
        { subject: `${stack.issuer}#vic`, role: 'viewer' },
      ],
      issuer: stack.issuer,
    });
  });

  t.test("a cluster switched off by a named member says who by name in the switch's record", async (t) => {
    const put = await ada(`/api/v1/tenants/acme/clusters/${id}/feature-flags/cli_access.enabled`, {
      method: 'PUT',
      body: JSON.stringify({ value: false, reason: 'maintenance' }),
    });
    t.equal(put.status, 200, await put.clone().text());
    const clusters = (await (await ada('/api/v1/tenants/acme/clusters')).json()) as {
      clusters: { cliAccess: { record: { actor: string; actorName?: string } } }[];
    };
    t.match(clusters.clusters[0]!.cliAccess.record, { actor: `${stack.issuer}#ada`, actorName: 'Ada Lovelace' });
  });

  t.test("the platform's switch names the platform admin who set it, to platform admins only", async (t) => {
    const root = await signedIn(stack, 'root');
    const put = await root('/api/v1/platform/feature-flags/cli_access.enabled', {
      method: 'PUT',
      headers: { 'x-gsp-confirm': 'default' },
      body: JSON.stringify({ value: false, reason: 'incident 42' }),
    });
    t.equal(put.status, 200, await put.clone().text());
    const record = async (as: typeof root) => {
      const { flags } = (await (await as('/api/v1/platform/feature-flags')).json()) as {
        flags: { key: string; platformRecord: { actor: string | null; actorName?: string } }[];
      };
      return flags.find((f) => f.key === 'cli_access.enabled')!.platformRecord;
    };
    t.match(await record(root), { actor: `${stack.issuer}#root`, actorName: 'Platform Root' }, 'by name');
    t.match(await record(root), { actorName: 'Platform Root' }, 'and again, from memory');
    const seenByAda = await record(ada);
    t.equal(seenByAda.actor, null, 'a tenant member is not told which platform admin');
    t.notOk('actorName' in seenByAda, 'nor their name');
  });
});
