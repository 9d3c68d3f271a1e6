import t from 'tap';
import fc from 'fast-check';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { parseExpiry, parseRfc3339 } from '../src/flags/record.js';
import {
  bearer,
  build,
  freshSchema,
  JWT_SECRET,
  PLATFORM_ADMIN,
  redisPrefix,
  registerCluster,
  seedTenant,
  TEST_REDIS_URL,
  until,
} from './helper.js';

const FLAG = 'cli_access.enabled';
const platformUrl = `/api/v1/platform/feature-flags/${FLAG}`;
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

t.test('reason and expiry rules, whatever the input', async (t) => {
  t.test('every RFC 3339 instant parses to itself, in Z and with an offset', async () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-02T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
        (date, offsetMinutes) => {
          const iso = date.toISOString();
          if (parseRfc3339(iso) !== date.getTime()) return false;
          const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, -1);
          const sign = offsetMinutes < 0 ? '-' : '+';
          const abs = Math.abs(offsetMinutes);
          const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
          return parseRfc3339(`${local}${offset}`) === date.getTime();
        },
      ),
    );
  });

  t.test('what is not an RFC 3339 date-time with a zone is refused, never thrown', async () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseRfc3339(text);
        return parsed === undefined || Number.isFinite(parsed);
      }),
    );
    for (const bad of ['2026-11-26', '2026-11-26T10:00:00', '2026-02-30T10:00:00Z', '2026-11-26T24:00:00Z', 'tomorrow'])
      if (parseRfc3339(bad) !== undefined) throw new Error(`${bad} was accepted`);
  });

  t.test('expiry: in the future and at most 30 days ahead', async (t) => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    fc.assert(
      fc.property(fc.integer({ min: -10 * 86_400_000, max: 40 * 86_400_000 }), (delta) => {
        const result = parseExpiry(new Date(now + delta).toISOString(), now);
        const ok = delta > 0 && delta <= 30 * 86_400_000;
        return ok ? 'at' in result && result.at === now + delta : 'problem' in result;
      }),
    );
    t.match(parseExpiry('2026-11-26T11:59:59Z', now), { problem: /must be in the future/ });
    t.match(parseExpiry('2026-12-27T12:00:00Z', now), { problem: /at most 30 days ahead/ });
  });
});

t.test('bad reasons and expiries are a 400 naming the rule, at both scopes', async (t) => {
  const { app } = await build(t);
  await seedTenant(app, 'acme', { olga: 'operator' });
  const cluster = await registerCluster(app, 'acme', 'eu-1');
  const urls = [
    [platformUrl, PLATFORM_ADMIN],
    [`/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags/${FLAG}`, 'olga'],
  ] as const;
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['a reason of 201 characters', { value: false, reason: 'x'.repeat(201) }, '#/reason', /at most 200 characters/],
    ['a line break in the reason', { value: false, reason: 'one\ntwo' }, '#/reason', /printable/],
    ['an escape in the reason', { value: false, reason: 'red \u001b[31m' }, '#/reason', /printable/],
    ['a right-to-left override', { value: false, reason: 'abc \u202e fed' }, '#/reason', /printable/],
    ['an empty reason', { value: false, reason: '' }, '#/reason', /must not be empty/],
    ['an expiry in the past', { value: false, expiresAt: '2020-01-01T00:00:00Z' }, '#/expiresAt', /in the future/],
    [
      'an expiry 31 days ahead',
      { value: false, expiresAt: new Date(Date.now() + 31 * 86_400_000).toISOString() },
      '#/expiresAt',
      /at most 30 days ahead/,
    ],
    ['an expiry without a zone', { value: false, expiresAt: '2030-01-01T00:00:00' }, '#/expiresAt', /RFC 3339/],
    ['a string value', { value: 'false' }, '#/value', /value must be a boolean/],
    ['a reason that is a number', { value: false, reason: 42 }, '#/reason', /reason must be a string/],
    ['an unknown field', { value: false, until: 'tomorrow' }, '#/until', /unknown field "until"/],
  ];
  for (const [url, subject] of urls) {
    for (const [name, payload, pointer, detail] of cases) {
      const res = await app.inject({ method: 'PUT', url, headers: await bearer(subject), payload });
      t.equal(res.statusCode, 400, `${name}: 400 (${url})`);
      t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      t.match(res.json(), { detail, errors: [{ in: 'body', pointer, detail }] }, name);
    }
    const plain = await app.inject({ method: 'PUT', url, headers: await bearer(subject), payload: { value: false } });
    t.equal(plain.statusCode, 200, '{"value": false} alone is still valid');
  }
  t.equal(
    Number(
      (await app.pg.query('SELECT count(*) AS n FROM audit_events WHERE action LIKE $1', ['featureflags.%'])).rows[0].n,
    ),
    2,
    'nothing refused was written',
  );
});

t.test('who, when, why and until when: what a tenant and a platform admin each see', async (t) => {
  const { app } = await build(t);
  await seedTenant(app, 'acme', { ada: 'admin', olga: 'operator', victor: 'viewer' });
  const cluster = await registerCluster(app, 'acme', 'eu-1');
  const expiresAt = inAnHour();
  const put = await app.inject({
    method: 'PUT',
    url: platformUrl,
    headers: await bearer(PLATFORM_ADMIN),
    payload: { value: false, reason: 'incident 42', expiresAt },
  });
  t.equal(put.statusCode, 200);
  const setAt = put.json().platformRecord.setAt;

  const tenantView = {
    value: false,
    actor: null,
    actorRole: 'platform-admin',
    setAt,
    reason: 'incident 42',
    expiresAt,
  };
  const platform = await app.inject({ url: '/api/v1/platform/feature-flags', headers: await bearer('victor') });
  t.same(platform.json().flags[0].platformRecord, tenantView, 'a tenant is told a platform admin set it, and why');
  const adminView = await app.inject({ url: '/api/v1/platform/feature-flags', headers: await bearer(PLATFORM_ADMIN) });
  t.equal(adminView.json().flags[0].platformRecord.actor, PLATFORM_ADMIN, 'a platform admin sees who');
  // Asked again at once, both are answered from memory (who is a platform admin is remembered): the same.
  for (const [subject, actor] of [
    ['victor', null],
    [PLATFORM_ADMIN, PLATFORM_ADMIN],
    ['victor', null],
  ] as const) {
    const again = await app.inject({ url: '/api/v1/platform/feature-flags', headers: await bearer(subject) });
    t.equal(again.json().flags[0].platformRecord.actor, actor, `${subject} again`);
  }

  const access = await app.inject({
    url: `/api/v1/tenants/acme/clusters/${cluster.id}/access`,
    headers: await bearer('victor'),
  });
  t.same(access.json().cliAccess, { enabled: false, source: 'platform', envPinned: false, record: tenantView });
  const clusterList = await app.inject({
    url: `/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags`,
    headers: await bearer('victor'),
  });
  t.match(clusterList.json().flags[0], { source: 'platform', platformRecord: tenantView, clusterRecord: null });

  const download = await app.inject({
    url: `/api/v1/tenants/acme/clusters/${cluster.id}/kubeconfig`,
    headers: await bearer('olga'),
  });
  t.equal(download.statusCode, 410);
  t.equal(
    download.json().detail,
    `CLI access is disabled by platform policy for cluster ${cluster.id}: ` +
      `set by a platform admin for the whole platform: "incident 42" (until ${expiresAt}); ` +
      'kubeconfig downloads are disabled',
  );

  // The tenant's own operator overrides it for the cluster: the tenant sees its colleague's name.
  const override = await app.inject({
    method: 'PUT',
    url: `/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags/${FLAG}`,
    headers: await bearer('olga'),
    payload: { value: false, reason: 'upgrading the control plane' },
  });
  t.equal(override.statusCode, 200);
  t.match(override.json(), {
    source: 'cluster',
    clusterRecord: { actor: 'olga', actorRole: 'operator', reason: 'upgrading the control plane', expiresAt: null },
    platformRecord: { actor: null, actorRole: 'platform-admin' },
  });
  const after = await app.inject({
    url: `/api/v1/tenants/acme/clusters/${cluster.id}/kubeconfig`,
    headers: await bearer('olga'),
  });
  t.equal(
    after.json().detail,
    `CLI access is disabled by the tenant's own decision for cluster ${cluster.id}: ` +
      'set by tenant operator olga for this cluster: "upgrading the control plane"; ' +
      'kubeconfig downloads are disabled',
    'the message names the scope that decided',
  );
});

t.test('an expiry clears the value once, with two replicas running, within a second', async (t) => {
  const { url } = await freshSchema(t);
  const prefix = redisPrefix();
  const replica = async () => {
    const app = await buildApp(
      loadConfig({
        DATABASE_URL: url,
        AUTH_JWT_SECRET: JWT_SECRET,
        PLATFORM_ADMINS: PLATFORM_ADMIN,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_KEY_PREFIX: prefix,
      }),
      false,
    );
    t.teardown(() => app.close());
    await app.ready();
    return app;
  };
  const [a, b] = [await replica(), await replica()];
  const expiresAt = new Date(Date.now() + 3000);
  const put = await a.inject({
    method: 'PUT',
    url: platformUrl,
    headers: await bearer(PLATFORM_ADMIN),
    payload: { value: false, reason: 'maintenance', expiresAt: expiresAt.toISOString() },
  });
  t.equal(put.statusCode, 200);
  const headers = await bearer('anyone');
  const read = async (app: typeof a) =>
    (await app.inject({ url: '/api/v1/platform/feature-flags', headers })).json().flags[0];
  t.match(await read(b), { value: false, source: 'platform' }, 'the other replica sees it off');

  const back = await until(
    'the value to be cleared on both replicas',
    async () => ((await read(a)).source === 'default' && (await read(b)).source === 'default' ? Date.now() : undefined),
    10_000,
    20,
  );
  const late = back - expiresAt.getTime();
  t.comment(`cleared and seen on both replicas ${late} ms after expiresAt`);
  t.ok(late < 1000, 'within 1 s of expiresAt');

  // Reads stop counting the value at expiresAt; the row is cleared (audit, event, caches) by then too.
  const audit = await until('the expiry to be recorded', async () => {
    const { rows } = await a.pg.query(
      `SELECT actor, details, created_at FROM audit_events WHERE action = 'featureflags.cleared'`,
    );
    return rows.length > 0 ? rows : undefined;
  });
  const recordedLate = (audit[0].created_at as Date).getTime() - expiresAt.getTime();
  t.comment(`the expiry was recorded ${recordedLate} ms after expiresAt`);
  t.ok(recordedLate >= 0 && recordedLate < 1000, 'cleared within 1 s of expiresAt, not before');
  for (const row of audit) delete row.created_at;
  t.same(audit, [
    {
      actor: 'system:expiry',
      details: {
        flag: FLAG,
        scope: { type: 'platform', platformId: 'default' },
        value: null,
        reason: 'maintenance',
        expiresAt: expiresAt.toISOString(),
        cause: 'expiry',
      },
    },
  ]);
  // Both replicas keep running past the moment: still one row and one event.
  await Promise.all([a, b].map((app) => app.flags.expireDue()));
  const events = await a.pg.query(`SELECT payload FROM outbox_events WHERE payload->>'cause' = 'expiry'`);
  t.equal(events.rows.length, 1, 'one outbox event');
  t.match(events.rows[0].payload, { actor: 'system:expiry', value: null, reason: 'maintenance' });
  t.equal(
    Number(
      (await a.pg.query(`SELECT count(*) AS n FROM audit_events WHERE action = 'featureflags.cleared'`)).rows[0].n,
    ),
    1,
    'one audit row',
  );
});

t.test('an expiry that passed while no replica ran is cleared at start', async (t) => {
  const first = await build(t);
  await seedTenant(first.app, 'acme', { olga: 'operator' });
  const cluster = await registerCluster(first.app, 'acme', 'eu-1');
  const put = await first.app.inject({
    method: 'PUT',
    url: `/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags/${FLAG}`,
    headers: await bearer('olga'),
    payload: { value: false, expiresAt: inAnHour() },
  });
  t.equal(put.statusCode, 200);
  await first.app.close();
  // The hour passes while nothing runs.
  const admin = new (await import('pg')).default.Client({ connectionString: first.databaseUrl });
  await admin.connect();
  await admin.query(`UPDATE feature_flags SET expires_at = now() - interval '1 minute'`);
  await admin.end();

  const app = await buildApp(
    loadConfig({ DATABASE_URL: first.databaseUrl, AUTH_JWT_SECRET: JWT_SECRET, PLATFORM_ADMINS: PLATFORM_ADMIN }),
    false,
  );
  t.teardown(() => app.close());
  await app.ready();
  const { rows } = await app.pg.query(
    `SELECT actor, org, details FROM audit_events WHERE action = 'featureflags.cleared'`,
  );
  t.match(
    rows,
    [{ actor: 'system:expiry', org: 'acme', details: { cause: 'expiry', scope: { clusterId: cluster.id } } }],
    'cleared by the time the server is ready',
  );
  t.equal((await app.pg.query('SELECT count(*) AS n FROM feature_flags')).rows[0].n, '0');
});
