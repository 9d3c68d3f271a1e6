import t from 'tap';
import fc from 'fast-check';
import pg from 'pg';
import { bearer, build, PLATFORM_ADMIN, registerCluster, seedTenant } from './helper.js';

interface Item {
  id: string;
  action: string;
  actor: string;
  resource: string;
  details: Record<string, unknown>;
  createdAt: string;
}
interface Page {
  items: Item[];
  nextCursor: string | null;
}

const { app, databaseUrl } = await build(t);
const admin = await bearer(PLATFORM_ADMIN);
const ada = await bearer('ada');
const otto = await bearer('otto');
const gina = await bearer('gina');
/** Setup checks, before the subtests (a root-level assertion would end the file's plan early). */
function ok(condition: boolean, what: string): void {
  if (!condition) throw new Error(`setup failed: ${what}`);
}
const flagUrl = (org: string, id: string) => `/api/v1/tenants/${org}/clusters/${id}/feature-flags/cli_access.enabled`;

// Two tenants with a cluster each that is registered, switched off and on again, and has its agent
// token rotated; acme has a second cluster, deleted; the platform flag is written too.
await seedTenant(app, 'acme', { ada: 'admin', otto: 'operator' });
await seedTenant(app, 'globex', { gina: 'admin' });
const eu = await registerCluster(app, 'acme', 'eu-1');
const us = await registerCluster(app, 'acme', 'us-1');
const gx = await registerCluster(app, 'globex', 'gx-1');
for (const [org, id, headers] of [
  ['acme', eu.id, otto],
  ['globex', gx.id, gina],
] as const) {
  const put = await app.inject({ method: 'PUT', url: flagUrl(org, id), headers, payload: { value: false } });
  ok(put.statusCode === 200, put.body);
  ok((await app.inject({ method: 'DELETE', url: flagUrl(org, id), headers })).statusCode === 200, 'clear');
}
const rotated = await app.inject({
  method: 'POST',
  url: `/api/v1/tenants/acme/clusters/${eu.id}/agent-token`,
  headers: admin,
});
ok(rotated.statusCode === 200 || rotated.statusCode === 201, rotated.body);
const deleted = await app.inject({ method: 'DELETE', url: `/api/v1/tenants/acme/clusters/${us.id}`, headers: admin });
ok(deleted.statusCode === 204, deleted.body);
const platformFlag = await app.inject({
  method: 'PUT',
  url: '/api/v1/platform/feature-flags/cli_access.enabled',
  headers: admin,
  payload: { value: true },
});
ok(platformFlag.statusCode === 200, platformFlag.body);

// Every entry gets a known time: the n-th (from 0) at 2026-01-01T00:00:00Z plus n minutes and n
// microseconds, so a bound can land exactly on an entry, to the microsecond.
const db = new pg.Client({ connectionString: databaseUrl });
await db.connect();
t.teardown(() => db.end());
await db.query(`UPDATE audit_events SET created_at = timestamptz '2026-01-01T00:00:00Z'
  + (id - (SELECT min(id) FROM audit_events)) * interval '1 minute 0.000001 second'`);
const BASE = Date.UTC(2026, 0, 1);
/** The n-th entry's time as RFC 3339 with microseconds, plus `extraMicros`. */
function at(n: number, extraMicros = 0): string {
  const micros = n + extraMicros;
  const iso = new Date(BASE + n * 60_000 + Math.floor(micros / 1000)).toISOString();
  return `${iso.slice(0, 23)}${String(micros % 1000).padStart(3, '0')}Z`;
}

async function pages(query: string, headers = admin, base = '/api/v1/platform/audit'): Promise<Item[]> {
  const seen: Item[] = [];
  let cursor: string | null = null;
  do {
    const res: { statusCode: number; body: string; json: () => unknown } = await app.inject({
      url: `${base}?limit=3&${query}${cursor === null ? '' : `&cursor=${cursor}`}`,
      headers,
    });
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
    const page = res.json() as Page;
    seen.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return seen;
}

/** The same read as a download: NDJSON, oldest first. */
async function download(query: string, headers = admin, base = '/api/v1/platform/audit'): Promise<Item[]> {
  const res = await app.inject({ url: `${base}?format=ndjson&${query}`, headers });
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
  return res.body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Item);
}

/** Reads with both forms on one route and checks they agree: the entries, oldest first. */
/** What `read` asserts with: a tap test. */
type Same = { same(found: unknown, wanted: unknown, message: string): unknown };
async function read(t: Same, query: string, headers = admin, base = '/api/v1/platform/audit'): Promise<Item[]> {
  const paged = await pages(query, headers, base);
  const whole = await download(query, headers, base);
  t.same(
    whole.map((i) => i.id),
    paged.map((i) => i.id).reverse(),
    `${base}?${query}: the download holds what the pages hold, oldest first`,
  );
  return whole;
}

const everything = await pages('');
const nth = (item: Item) => everything.length - 1 - everything.findIndex((i) => i.id === item.id);
const acmeBase = '/api/v1/tenants/acme/audit';

t.test("cluster= keeps one cluster's entries: registration, flags, agent token", async (t) => {
  const expected = ['clusters.registered', 'featureflags.set', 'featureflags.cleared', 'clusters.agent_token.rotated'];
  for (const [headers, base] of [
    [admin, '/api/v1/platform/audit'],
    [ada, acmeBase],
  ] as const) {
    const rows = await read(t, `cluster=${eu.id}`, headers, base);
    t.same(
      rows.map((i) => i.action),
      expected,
      base,
    );
    t.ok(
      rows.every((i) => i.resource === `cluster:${eu.id}`),
      'each about the cluster',
    );
  }
  const gone = await read(t, `cluster=${us.id}`, ada, acmeBase);
  t.same(
    gone.map((i) => i.action),
    ['clusters.registered', 'clusters.deleted'],
    'a deleted cluster keeps its history',
  );
  t.same(await read(t, 'cluster=no-such-cluster'), [], 'an unknown cluster: nothing, not an error');
});

t.test("a tenant admin asking for another tenant's cluster gets nothing of it", async (t) => {
  t.same(await read(t, `cluster=${gx.id}`, ada, acmeBase), [], "globex's cluster through acme's audit");
  t.same(
    await read(t, `cluster=${gx.id}&since=${at(0)}&action=featureflags.set`, ada, acmeBase),
    [],
    'nor with more filters',
  );
  const own = await read(t, `cluster=${gx.id}`, gina, '/api/v1/tenants/globex/audit');
  t.equal(own.length, 3, "globex's admin sees its cluster's entries");
  const res = await app.inject({ url: `/api/v1/tenants/globex/audit?cluster=${gx.id}`, headers: ada });
  t.equal(res.statusCode, 403, "and acme's admin may not read globex's audit at all");
});

t.test('since is inclusive and until exclusive, to the microsecond', async (t) => {
  const n = 5;
  const from = await read(t, `since=${at(n)}`);
  t.same(
    from.map(nth),
    Array.from({ length: everything.length - n }, (_, i) => n + i),
    'since at an entry keeps it',
  );
  t.same((await read(t, `since=${at(n, 1)}`)).map(nth)[0], n + 1, 'one microsecond later leaves it out');
  const before = await read(t, `until=${at(n)}`);
  t.same(before.map(nth), [0, 1, 2, 3, 4], 'until at an entry leaves it out');
  t.same((await read(t, `until=${at(n, 1)}`)).map(nth).at(-1), n, 'one microsecond later keeps it');
  t.same((await read(t, `since=${at(2)}&until=${at(4)}`)).map(nth), [2, 3], 'both: a half-open range');
});

t.test('an offset names the same instant, and digits past the microsecond are dropped', async (t) => {
  const utc = at(3);
  const shifted = `2025-12-31T22:03:00.000003-02:00`;
  t.equal(new Date(shifted).toISOString(), new Date(utc).toISOString());
  t.same((await read(t, `since=${encodeURIComponent(shifted)}`)).map(nth)[0], 3);
  t.same((await read(t, `since=${at(3).replace('Z', '999Z')}`)).map(nth)[0], 3, 'nanoseconds truncated');
  t.same((await read(t, `since=${at(3).replace('T', 't').replace('Z', 'z')}`)).map(nth)[0], 3, 'lower-case t and z');
});

t.test('filters combine: cluster, action, actor and a time range on both routes', async (t) => {
  const sets = everything.filter((i) => i.action === 'featureflags.set');
  const euSet = sets.find((i) => i.resource === `cluster:${eu.id}`)!;
  const query =
    `cluster=${eu.id}&action=featureflags.set&actor=otto` + `&since=${at(nth(euSet))}&until=${at(nth(euSet) + 1)}`;
  for (const [headers, base] of [
    [admin, '/api/v1/platform/audit'],
    [ada, acmeBase],
  ] as const) {
    t.same(
      (await read(t, query, headers, base)).map((i) => i.id),
      [euSet.id],
      base,
    );
    t.same(await read(t, query.replace('actor=otto', 'actor=ada'), headers, base), [], `${base}: another actor`);
  }
  const platformSets = await read(t, `action=featureflags.set&since=${at(0)}`);
  t.equal(platformSets.length, 3, 'the platform sees every tenant and its own');
  const acmeSets = await read(t, `action=featureflags.set&since=${at(0)}`, ada, acmeBase);
  t.same(
    acmeSets.map((i) => i.id),
    [euSet.id],
    'a tenant sees only its own',
  );
});

t.test('since or until that is not an RFC 3339 date-time is a 400 naming the field', async (t) => {
  const bad = [
    '2026-02-30T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:00:60Z',
    '2026-01-01T00:00:00',
    '2026-01-01',
    '2026-01-01 00:00:00Z',
    '2026-01-01T00:00:00+24:00',
    'yesterday',
    '',
  ];
  for (const field of ['since', 'until']) {
    for (const value of bad) {
      for (const base of ['/api/v1/platform/audit', acmeBase]) {
        const res = await app.inject({
          url: `${base}?${field}=${encodeURIComponent(value)}`,
          headers: base === acmeBase ? ada : admin,
        });
        t.equal(res.statusCode, 400, `${base} ${field}=${value}`);
        t.match(res.headers['content-type'], /^application\/problem\+json/);
        t.match(res.json(), { errors: [{ in: 'query', pointer: `#/${field}` }] });
      }
    }
  }
  const plus = await app.inject({ url: '/api/v1/platform/audit?since=2026-01-01T00:00:00+02:00', headers: admin });
  t.equal(plus.statusCode, 400, 'a + offset not encoded arrives as a space');
  t.match(plus.json(), { errors: [{ pointer: '#/since', detail: /write a \+ offset as %2B/ }] });
  const res = await app.inject({
    url: `/api/v1/platform/audit?since=${at(0)}&until=2026-01-01T00:00:00Z`,
    headers: admin,
  });
  t.equal(res.statusCode, 400, 'until not after since');
  t.match(res.json(), { errors: [{ pointer: '#/until', detail: 'until must be later than since' }] });
  const early = await app.inject({
    url: `/api/v1/platform/audit?since=${at(2)}&until=${at(1)}&format=csv`,
    headers: admin,
  });
  t.equal(early.statusCode, 400, 'also for a download, before any byte of it');
  t.match(early.headers['content-type'], /^application\/problem\+json/);
  t.notOk(early.headers['content-disposition'], 'not a file');
});

t.test('any since and until: a 200 or a 400 problem, never a 500', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        fc.string({ maxLength: 40 }),
        fc
          .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }))
          .map(
            ([y, m, d]) =>
              `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}` +
              'T23:59:59.999999999+23:59',
          ),
      ),
      async (value) => {
        const res = await app.inject({
          url: `/api/v1/platform/audit?since=${encodeURIComponent(value)}`,
          headers: admin,
        });
        if (res.statusCode === 200) return true;
        return res.statusCode === 400 && String(res.headers['content-type']).startsWith('application/problem+json');
      },
    ),
    { numRuns: 150 },
  );
  const first = await app.inject({ url: '/api/v1/platform/audit?since=0000-01-01T00:00:00Z', headers: admin });
  t.equal(first.statusCode, 200, 'year 0000, which PostgreSQL would refuse as text');
  t.equal((first.json() as Page).items.length, Math.min(everything.length, 50));
});

t.test('limit=1000 is refused, and the answer says how to get everything', async (t) => {
  for (const [headers, base] of [
    [admin, '/api/v1/platform/audit'],
    [ada, acmeBase],
  ] as const) {
    const res = await app.inject({ url: `${base}?limit=1000`, headers });
    t.equal(res.statusCode, 400);
    t.match(res.json(), { errors: [{ pointer: '#/limit', detail: /at most 500.*\?format=ndjson/ }] });
  }
  const otto403 = await app.inject({ url: `${acmeBase}?limit=1000`, headers: otto });
  t.equal(otto403.statusCode, 403, 'the permission is checked first');
});
