import t from 'tap';
import fc from 'fast-check';
import { bearer, build, PLATFORM_ADMIN, putMember } from './helper.js';

interface Item {
  id: string;
  action: string;
  actor: string;
}
interface Page {
  items: Item[];
  nextCursor: string | null;
}

const { app } = await build(t);
const admin = await bearer(PLATFORM_ADMIN);
const FLAG = '/api/v1/platform/feature-flags/cli_access.enabled';
/** Setup checks, before the subtests (a root-level assertion would end the file's plan early). */
function ok(condition: boolean, what: string): void {
  if (!condition) throw new Error(`setup failed: ${what}`);
}

// A history with two actors and three actions: members set by the platform admin, a cluster by ada,
// platform flag writes and clears by the platform admin.
await putMember(app, 'acme', 'ada', 'admin', admin);
await putMember(app, 'acme', 'otto', 'operator', admin);
const registered = await app.inject({
  method: 'POST',
  url: '/api/v1/tenants/acme/clusters',
  headers: await bearer('ada'),
  payload: { name: 'eu-1' },
});
ok(registered.statusCode === 201, registered.body);
for (const reason of ['one', 'two', 'three']) {
  const put = await app.inject({ method: 'PUT', url: FLAG, headers: admin, payload: { value: false, reason } });
  ok(put.statusCode === 200, put.body);
  ok((await app.inject({ method: 'DELETE', url: FLAG, headers: admin })).statusCode === 200, 'clear');
}

async function readAll(query: string, headers = admin, base = '/api/v1/platform/audit'): Promise<Item[]> {
  const seen: Item[] = [];
  let cursor: string | null = null;
  do {
    const res: { statusCode: number; body: string; json: () => unknown } = await app.inject({
      url: `${base}?limit=2&${query}${cursor === null ? '' : `&cursor=${cursor}`}`,
      headers,
    });
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
    const page = res.json() as Page;
    seen.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return seen;
}

const everything = await readAll('');

t.test('action= keeps one action, newest first, paged with the same cursor', async (t) => {
  const sets = await readAll('action=featureflags.set');
  t.same(
    sets.map((i) => i.id),
    everything.filter((i) => i.action === 'featureflags.set').map((i) => i.id),
  );
  t.equal(sets.length, 3, 'every page of the filter, and nothing else');
});

t.test('actor= keeps one actor; action= and actor= together keep both', async (t) => {
  const ada = await readAll(`actor=ada`);
  t.same(
    ada.map((i) => i.action),
    ['clusters.registered'],
  );
  const both = await readAll(`actor=${PLATFORM_ADMIN}&action=tenants.members.set`);
  t.same(
    both.map((i) => i.id),
    everything.filter((i) => i.actor === PLATFORM_ADMIN && i.action === 'tenants.members.set').map((i) => i.id),
  );
  t.equal(both.length, 2);
  t.same(await readAll('actor=nobody'), [], 'an actor with no entries: an empty page, not an error');
});

t.test("a tenant admin's filter stays within the tenant", async (t) => {
  const ada = await bearer('ada');
  const sets = await readAll('action=featureflags.set', ada, '/api/v1/tenants/acme/audit');
  t.same(sets, [], "the platform's flag writes are not the tenant's");
  const members = await readAll('action=tenants.members.set', ada, '/api/v1/tenants/acme/audit');
  t.equal(members.length, 2);
});

t.test('a malformed filter is a 400 problem, never a 500', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('action', 'actor'),
      fc.oneof(
        fc.string({ minLength: 1, maxLength: 8 }).map((s) => `${s}\u0007`),
        fc.constant(''),
        fc.string({ minLength: 300, maxLength: 320 }),
      ),
      async (name, value) => {
        const res = await app.inject({
          url: `/api/v1/platform/audit?${name}=${encodeURIComponent(value)}`,
          headers: admin,
        });
        return res.statusCode === 400 && String(res.headers['content-type']).startsWith('application/problem+json');
      },
    ),
    { numRuns: 40 },
  );
  const upper = await app.inject({ url: '/api/v1/platform/audit?action=Featureflags.Set', headers: admin });
  t.equal(upper.statusCode, 400);
});
