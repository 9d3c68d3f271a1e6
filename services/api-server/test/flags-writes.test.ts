import t from 'tap';
import type pg from 'pg';
import { bearer, build, PLATFORM_ADMIN, registerCluster, seedTenant } from './helper.js';

const FLAG = 'cli_access.enabled';
const platformUrl = `/api/v1/platform/feature-flags/${FLAG}`;

async function counts(pool: pg.Pool) {
  const q = async (sql: string) => Number((await pool.query<{ n: string }>(sql)).rows[0]!.n);
  return {
    flags: await q('SELECT count(*) AS n FROM feature_flags'),
    audit: await q(`SELECT count(*) AS n FROM audit_events WHERE action LIKE 'featureflags.%'`),
    outbox: await q('SELECT count(*) AS n FROM outbox_events'),
  };
}

t.test('a write leaves exactly one audit row and one outbox row describing it', async (t) => {
  const { app } = await build(t);
  const expiresAt = new Date(Date.now() + 3600_000).toISOString();
  const res = await app.inject({
    method: 'PUT',
    url: platformUrl,
    headers: await bearer(PLATFORM_ADMIN),
    payload: { value: false, reason: 'incident 42', expiresAt },
  });
  t.equal(res.statusCode, 200);
  const setAt: string = res.json().platformRecord?.setAt;
  t.ok(Math.abs(Date.parse(setAt) - Date.now()) < 60_000, 'set now');
  const record = {
    value: false,
    actor: PLATFORM_ADMIN,
    actorRole: 'platform-admin',
    setAt,
    reason: 'incident 42',
    expiresAt,
  };
  t.same(res.json(), {
    key: FLAG,
    scope: { type: 'platform' },
    value: false,
    effective: false,
    source: 'platform',
    envPinned: false,
    platformRecord: record,
  });

  const audit = (await app.pg.query('SELECT action, actor, resource, details, request_id FROM audit_events')).rows;
  const scope = { type: 'platform', platformId: 'default' };
  t.same(audit, [
    {
      action: 'featureflags.set',
      actor: PLATFORM_ADMIN,
      resource: 'platform:default',
      details: { flag: FLAG, scope, value: false, reason: 'incident 42', expiresAt },
      request_id: res.headers['x-request-id'],
    },
  ]);
  const outbox = (await app.pg.query('SELECT event_type, scope_key, payload FROM outbox_events')).rows;
  t.same(outbox, [
    {
      event_type: 'featureflags.updated',
      scope_key: 'platform',
      payload: {
        flag: FLAG,
        actor: PLATFORM_ADMIN,
        actorRole: 'platform-admin',
        scope,
        value: false,
        setAt,
        reason: 'incident 42',
        expiresAt,
        cause: 'request',
      },
    },
  ]);

  const cleared = await app.inject({ method: 'DELETE', url: platformUrl, headers: await bearer(PLATFORM_ADMIN) });
  t.same(cleared.json(), {
    key: FLAG,
    scope: { type: 'platform' },
    value: null,
    effective: true,
    source: 'default',
    envPinned: false,
    platformRecord: null,
  });
  const last = (await app.pg.query('SELECT payload FROM outbox_events ORDER BY id DESC LIMIT 1')).rows[0].payload;
  t.match(last, { value: null, reason: null, expiresAt: null, cause: 'request' }, 'a clear carries no reason');
  t.same(await counts(app.pg), { flags: 0, audit: 2, outbox: 2 });
  t.equal(
    (await app.pg.query(`SELECT action FROM audit_events ORDER BY id DESC LIMIT 1`)).rows[0].action,
    'featureflags.cleared',
  );
});

t.test('a cluster write records the cluster scope in audit and outbox', async (t) => {
  const { app } = await build(t);
  await seedTenant(app, 'acme', { olga: 'operator' });
  const cluster = await registerCluster(app, 'acme', 'eu-1');
  const res = await app.inject({
    method: 'PUT',
    url: `/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags/${FLAG}`,
    headers: await bearer('olga'),
    payload: { value: false },
  });
  t.equal(res.statusCode, 200);
  const { rows } = await app.pg.query(
    `SELECT scope_key, payload FROM outbox_events WHERE event_type = 'featureflags.updated'`,
  );
  t.same(rows, [
    {
      scope_key: `cluster:${cluster.id}`,
      payload: {
        flag: FLAG,
        actor: 'olga',
        actorRole: 'operator',
        scope: { type: 'cluster', org: 'acme', clusterId: cluster.id },
        value: false,
        setAt: res.json().clusterRecord.setAt,
        reason: null,
        expiresAt: null,
        cause: 'request',
      },
    },
  ]);
});

t.test('50 concurrent writes leave 50 audit rows, 50 outbox rows and the last committed value', async (t) => {
  const { app } = await build(t);
  const headers = await bearer(PLATFORM_ADMIN);
  const values = Array.from({ length: 50 }, (_, i) => i % 3 === 0);
  const results = await Promise.all(
    values.map((value) => app.inject({ method: 'PUT', url: platformUrl, headers, payload: { value } })),
  );
  t.same(
    results.map((r) => r.statusCode),
    values.map(() => 200),
  );
  t.same(await counts(app.pg), { flags: 1, audit: 50, outbox: 50 });

  const lastAudit = (await app.pg.query(`SELECT details->'value' AS value FROM audit_events ORDER BY id DESC LIMIT 1`))
    .rows[0].value;
  const lastOutbox = (
    await app.pg.query(`SELECT payload->'value' AS value FROM outbox_events ORDER BY id DESC LIMIT 1`)
  ).rows[0].value;
  const stored = (await app.pg.query(`SELECT value FROM feature_flags`)).rows[0].value;
  t.equal(stored, lastAudit, 'the stored value is the one the last audit row recorded');
  t.equal(stored, lastOutbox, 'and the one the last outbox event announced');
  const read = await app.inject({ url: '/api/v1/platform/feature-flags', headers });
  t.equal(read.json().flags[0].value, stored);
});

t.test('a write whose transaction aborts leaves no value, no audit row and no outbox row', async (t) => {
  const { app, schema } = await build(t);
  // A real database failure at the last statement of the transaction: the outbox insert.
  await app.pg.query(
    `CREATE FUNCTION ${schema}.reject_outbox() RETURNS trigger LANGUAGE plpgsql AS $$ ` +
      "BEGIN RAISE EXCEPTION 'outbox unavailable'; END $$",
  );
  await app.pg.query(
    `CREATE TRIGGER reject_outbox BEFORE INSERT ON ${schema}.outbox_events ` +
      `FOR EACH ROW EXECUTE FUNCTION ${schema}.reject_outbox()`,
  );

  const res = await app.inject({
    method: 'PUT',
    url: platformUrl,
    headers: await bearer(PLATFORM_ADMIN),
    payload: { value: false },
  });
  t.equal(res.statusCode, 500);
  t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
  t.notMatch(res.body, /outbox unavailable|at .*\.ts/, 'no database detail or stack trace reaches the client');
  t.same(await counts(app.pg), { flags: 0, audit: 0, outbox: 0 });
});

t.test('while the flag is pinned, writes are stored but inert and say so', async (t) => {
  const { app } = await build(t, { SERVICE_CLI_ACCESS_ENABLED: 'true' });
  const res = await app.inject({
    method: 'PUT',
    url: platformUrl,
    headers: await bearer(PLATFORM_ADMIN),
    payload: { value: false },
  });
  t.match(res.json(), {
    key: FLAG,
    scope: { type: 'platform' },
    value: false,
    effective: true,
    source: 'env',
    envPinned: true,
    platformRecord: { value: false, actor: PLATFORM_ADMIN },
  });
  t.same(await counts(app.pg), { flags: 1, audit: 1, outbox: 1 });
});

t.test('the audit log lists newest first with a cursor', async (t) => {
  const { app } = await build(t);
  const headers = await bearer(PLATFORM_ADMIN);
  for (const value of [true, false, true, false, true]) {
    await app.inject({ method: 'PUT', url: platformUrl, headers, payload: { value } });
  }
  const first = await app.inject({ url: '/api/v1/platform/audit?limit=2', headers });
  t.equal(first.statusCode, 200);
  const page1 = first.json();
  t.same(
    page1.items.map((i: { details: { value: boolean } }) => i.details.value),
    [true, false],
  );
  t.type(page1.nextCursor, 'string');
  const page2 = (
    await app.inject({ url: `/api/v1/platform/audit?limit=2&cursor=${page1.nextCursor}`, headers })
  ).json();
  t.same(
    page2.items.map((i: { details: { value: boolean } }) => i.details.value),
    [true, false],
  );
  const page3 = (
    await app.inject({ url: `/api/v1/platform/audit?limit=2&cursor=${page2.nextCursor}`, headers })
  ).json();
  t.equal(page3.items.length, 1);
  t.equal(page3.nextCursor, null);
  t.ok(
    page1.items[0].id > page1.items[1].id && page1.items[1].id > page2.items[0].id,
    'ids strictly decrease across pages',
  );

  const all = await app.inject({ url: '/api/v1/platform/audit', headers });
  t.equal(all.json().items.length, 5, 'limit defaults to 50');
  const bad = await app.inject({ url: '/api/v1/platform/audit?limit=2&cursor=not-a-cursor', headers });
  t.equal(bad.statusCode, 400);
  t.match(bad.json().detail, /cursor/);
  const tooMany = await app.inject({ url: '/api/v1/platform/audit?limit=100000', headers });
  t.equal(tooMany.statusCode, 400);
  const forbidden = await app.inject({ url: '/api/v1/platform/audit', headers: await bearer('someone') });
  t.equal(forbidden.statusCode, 403);
});
