import t from 'tap';
import fc from 'fast-check';
import { Compile } from 'typebox/compile';
import { ClusterParams, OrgParams, Subject } from '../src/schemas.js';
import { bearer, build, PLATFORM_ADMIN, registerCluster, seedTenant } from './helper.js';

/** C0 controls, DEL and C1 controls: what no subject, org, cluster id or name may hold. */
const isControl = (c: string): boolean => {
  const code = c.codePointAt(0) ?? 0;
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
};
const INJECTED = 'mallory-x\r\nImpersonate-Group: system:masters';

t.test('identifiers with control characters are refused at the API', async (t) => {
  const { app } = await build(t);
  const admin = await bearer(PLATFORM_ADMIN);
  await seedTenant(app, 'acme', { ada: 'admin' });
  const { id } = await registerCluster(app, 'acme', 'eu-west');

  const refused = (res: { statusCode: number; headers: Record<string, unknown> }) =>
    res.statusCode === 400 && String(res.headers['content-type']).startsWith('application/problem+json');

  t.test('a member subject with a line break is refused with 400 and nothing is stored', async (t) => {
    const url = `/api/v1/tenants/acme/members/${encodeURIComponent(INJECTED)}`;
    const res = await app.inject({ method: 'PUT', url, headers: admin, payload: { role: 'viewer' } });
    t.ok(refused(res), `400 problem+json (got ${res.statusCode} ${String(res.headers['content-type'])})`);
    t.match(res.json(), { status: 400, title: String, detail: /subject/ });
    const { rows } = await app.pg.query('SELECT subject FROM role_bindings WHERE subject LIKE $1', ['mallory%']);
    t.same(rows, [], 'no role binding stored');
    const { rows: audits } = await app.pg.query("SELECT 1 FROM audit_events WHERE details->>'subject' LIKE 'mallory%'");
    t.same(audits, [], 'nothing audited');
  });

  t.test('a tenant admin cannot add such a member either, nor remove one by such a name', async (t) => {
    const ada = await bearer('ada');
    const url = `/api/v1/tenants/acme/members/${encodeURIComponent(INJECTED)}`;
    t.ok(refused(await app.inject({ method: 'PUT', url, headers: ada, payload: { role: 'admin' } })));
    t.ok(refused(await app.inject({ method: 'DELETE', url, headers: ada })));
  });

  // The permission check (src/plugins/auth.ts, a preValidation hook) queries the org before the
  // params schema runs, so it refuses control characters itself (a NUL was a PostgreSQL 500).
  t.test('a NUL or another control character in the org is a 400, not a 500', async (t) => {
    for (const org of ['ac%00me', 'acme%0D%0A', 'acme%7F', 'acme%C2%85']) {
      for (const path of ['/members', '/clusters', `/clusters/${id}`]) {
        const url = `/api/v1/tenants/${org}${path}`;
        const res = await app.inject({ url, headers: admin });
        t.ok(refused(res), `${url}: got ${res.statusCode}`);
      }
    }
  });

  t.test('a NUL or another control character in the cluster id is a 400, not a 500', async (t) => {
    for (const bad of [`${id}%00`, '%00', `${id}%0A`, `${id}%1B`]) {
      for (const path of ['', '/access', '/kubeconfig', '/feature-flags']) {
        const url = `/api/v1/tenants/acme/clusters/${bad}${path}`;
        const res = await app.inject({ url, headers: admin });
        t.ok(refused(res), `${url}: got ${res.statusCode}`);
      }
    }
  });

  t.test('a cluster name with a control character is refused', async (t) => {
    for (const name of ['eu\nwest', 'eu-west\u0000', '\u0085eu']) {
      const url = '/api/v1/tenants/acme/clusters';
      const res = await app.inject({ method: 'POST', url, headers: admin, payload: { name } });
      t.ok(refused(res), `${encodeURIComponent(name)}: got ${res.statusCode}`);
    }
  });

  t.test('ordinary identifiers still work', async (t) => {
    const subject = 'user@example.com/with inner spaces';
    const url = `/api/v1/tenants/acme/members/${encodeURIComponent(subject)}`;
    t.equal((await app.inject({ method: 'PUT', url, headers: admin, payload: { role: 'viewer' } })).statusCode, 200);
    t.equal((await app.inject({ method: 'DELETE', url, headers: admin })).statusCode, 204);
  });
});

t.test('an identifier schema accepts exactly the strings without control characters, within its length', async (t) => {
  // Every code point, and often the characters the rule is about.
  const edgy = fc.constantFrom('\0', '\t', '\n', '\r', '\x1f', ' ', '\x7f', '\x80', '\x85', '\x9f', '\xa0', 'a', '名');
  const anyString = fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ unit: edgy, maxLength: 80 }));
  const codePoints = (s: string): number => [...s].length;
  for (const [what, schema, maxLength] of [
    ['a subject', Subject, 255],
    ['an org', OrgParams.properties.org, 253],
    ['a cluster id', ClusterParams.properties.id, 64],
  ] as const) {
    const validator = Compile(schema);
    const nearTheLimit = fc.string({ unit: edgy, minLength: maxLength - 2, maxLength: maxLength + 2 });
    fc.assert(
      fc.property(fc.oneof(anyString, nearTheLimit), (s) => {
        const expected = ![...s].some(isControl) && codePoints(s) >= 1 && codePoints(s) <= maxLength;
        return validator.Check(s) === expected;
      }),
      { numRuns: 1000 },
    );
    t.pass(what);
  }
});

t.test('a NUL or another control character in an OFREP context is INVALID_CONTEXT (400), not a 500', async (t) => {
  const { app } = await build(t);
  await seedTenant(app, 'acme', { alice: 'viewer' });
  const { id } = await registerCluster(app, 'acme', 'eu-west');
  for (const subject of [PLATFORM_ADMIN, 'alice']) {
    const headers = await bearer(subject);
    const contexts: Array<[Record<string, string>, string]> = [
      [{ org: 'ac\u0000me' }, 'org'],
      [{ org: 'acme\r\n' }, 'org'],
      [{ org: 'acme', clusterId: `${id}\u0000` }, 'clusterId'],
      [{ org: 'acme', clusterId: '\u009b' }, 'clusterId'],
      [{ targetingKey: 'user-1\u0000' }, 'targetingKey'],
    ];
    for (const [context, field] of contexts) {
      const single = await app.inject({
        method: 'POST',
        url: '/ofrep/v1/evaluate/flags/cli_access.enabled',
        headers,
        payload: { context },
      });
      t.equal(single.statusCode, 400, `${subject}: single ${JSON.stringify(context)}`);
      t.same(single.json(), {
        key: 'cli_access.enabled',
        errorCode: 'INVALID_CONTEXT',
        errorDetails: `context.${field} must not contain control characters`,
      });
      const bulk = await app.inject({ method: 'POST', url: '/ofrep/v1/evaluate/flags', headers, payload: { context } });
      t.equal(bulk.statusCode, 400, `${subject}: bulk ${JSON.stringify(context)}`);
      t.same(bulk.json(), {
        errorCode: 'INVALID_CONTEXT',
        errorDetails: `context.${field} must not contain control characters`,
      });
    }
    for (const query of ['org=ac%00me', `org=acme&clusterId=${id}%00`]) {
      const stream = await app.inject({ url: `/ofrep/v1/events?${query}`, headers });
      t.equal(stream.statusCode, 400, `${subject}: event stream ?${query}`);
      t.match(stream.json(), { errorCode: 'INVALID_CONTEXT', errorDetails: /must not contain control characters/ });
    }
  }
  const { rows } = await app.pg.query('SELECT 1');
  t.equal(rows.length, 1, 'the database is still fine');
});
