import t from 'tap';
import type { Test } from 'tap';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { ANSWER_MARGIN_MS } from '../src/plugins/db.js';
import { DATABASE_UNAVAILABLE } from '../src/db/availability.js';
import { READY_TIMEOUT_MS } from '../src/ops/routes.js';
import {
  bearer,
  build,
  cuttableDatabaseUrl,
  cuttableRedisUrl,
  PLATFORM_ADMIN,
  redisPrefix,
  registerCluster,
  seedTenant,
  TEST_REDIS_URL,
  until,
} from './helper.js';
import type { FaultyLink } from './helper.js';

// Short timeouts keep the suite quick; the last test holds the default bound.
const CONNECT_MS = 500;
const STATEMENT_MS = 1000;
/** Slack for a loaded test machine on top of what the timeouts add up to. */
const SLACK_MS = 750;
/** The longest a request may wait on a failed database: one connection attempt, then one unanswered statement. */
const BOUND_MS = CONNECT_MS + STATEMENT_MS + ANSWER_MARGIN_MS + SLACK_MS;
const READY_BOUND_MS = 2000;

const FLAG = 'cli_access.enabled';
const platformFlag = `/api/v1/platform/feature-flags/${FLAG}`;

async function timed(
  app: FastifyInstance,
  options: InjectOptions,
): Promise<{ res: LightMyRequestResponse; ms: number }> {
  const started = performance.now();
  const res = await app.inject(options);
  return { res, ms: Math.round(performance.now() - started) };
}

/** 503 problem+json with Retry-After and nothing of the database's own words. */
function isUnavailable(t: Test, what: string, res: LightMyRequestResponse, detail = DATABASE_UNAVAILABLE): void {
  t.equal(res.statusCode, 503, `${what}: 503 (got ${res.statusCode} ${res.body.slice(0, 200)})`);
  t.match(res.headers['content-type'], /^application\/problem\+json/, `${what}: problem+json`);
  t.equal(res.headers['retry-after'], '2', `${what}: Retry-After`);
  t.equal(res.json().detail, detail, `${what}: detail`);
  t.notMatch(res.body, /timeout|ECONN|terminated|postgres|\n\s+at /i, `${what}: no internals`);
}

/** Opens `n` connections and leaves them idle in the pool, so a fault finds some in use and some to be made. */
async function warm(app: FastifyInstance, n: number): Promise<void> {
  await Promise.all(Array.from({ length: n }, () => app.pg.query('SELECT pg_sleep(0.05)')));
}

async function scene(t: Test, env: Record<string, string> = {}) {
  let db: (FaultyLink & { url: string }) | undefined;
  const timeouts = { DATABASE_CONNECT_TIMEOUT: `${CONNECT_MS}ms`, DATABASE_STATEMENT_TIMEOUT: `${STATEMENT_MS}ms` };
  const { app } = await build(t, { ...timeouts, ...env }, async (url) => {
    db = await cuttableDatabaseUrl(t, url);
    return db.url;
  });
  await seedTenant(app, 'acme', { ada: 'admin', otto: 'operator' });
  const cluster = await registerCluster(app, 'acme', 'eu-west');
  // Heal before the app closes, whatever the test did.
  t.teardown(() => db!.restore());
  await warm(app, 6);
  return {
    app,
    db: db!,
    cluster,
    admin: await bearer(PLATFORM_ADMIN),
    ada: await bearer('ada'),
    otto: await bearer('otto'),
  };
}

/** Every kind of request that reads or writes the database, at once. */
function requests(s: Awaited<ReturnType<typeof scene>>, n: number): Array<[string, InjectOptions]> {
  const clusterFlag = `/api/v1/tenants/acme/clusters/${s.cluster.id}/feature-flags/${FLAG}`;
  return [
    ['a platform flag write', { method: 'PUT', url: platformFlag, headers: s.admin, payload: { value: true } }],
    ['a cluster flag write', { method: 'PUT', url: clusterFlag, headers: s.otto, payload: { value: true } }],
    [
      'a member write',
      { method: 'PUT', url: `/api/v1/tenants/acme/members/m${n}`, headers: s.ada, payload: { role: 'viewer' } },
    ],
    [
      'a cluster registration',
      { method: 'POST', url: '/api/v1/tenants/acme/clusters', headers: s.otto, payload: { name: `c${n}` } },
    ],
    ['a cluster list', { url: '/api/v1/tenants/acme/clusters', headers: s.otto }],
    ['a kubeconfig', { url: `/api/v1/tenants/acme/clusters/${s.cluster.id}/kubeconfig`, headers: s.otto }],
    ['the audit', { url: '/api/v1/platform/audit', headers: s.admin }],
  ];
}

/**
 * Counts that show whether a write was half done: each committed write has exactly one audit row and one outbox
 * row.
 */
async function ledger(app: FastifyInstance) {
  const { rows } = await app.pg.query<{
    flags: number;
    audits: number;
    outbox: number;
    members: number;
    memberAudits: number;
  }>(
    `SELECT (SELECT count(*)::int FROM audit_events WHERE action LIKE 'featureflags.%') AS audits,
            (SELECT count(*)::int FROM outbox_events WHERE event_type = 'featureflags.updated') AS outbox,
            (SELECT count(*)::int FROM feature_flags) AS flags,
            (SELECT count(*)::int FROM role_bindings WHERE resource = 'tenant:acme') AS members,
            (SELECT count(*)::int FROM audit_events WHERE action = 'tenants.members.set') AS "memberAudits"`,
  );
  return rows[0]!;
}

for (const fault of ['stall', 'cut'] as const) {
  const how =
    fault === 'stall' ? 'stalled (nothing answers, nothing closes)' : 'cut (connections reset, new ones refused)';
  t.test(`PostgreSQL ${how}`, async (t) => {
    const s = await scene(t);
    const before = await ledger(s.app);
    const succeeded = { flagWrites: 0, memberWrites: 0 };
    s.db[fault]();

    t.test(`requests answer 503 with Retry-After within ${BOUND_MS} ms, even thirty at once`, async (t) => {
      // Three rounds of every kind of request: more than the pool's ten connections.
      const all = [0, 1, 2, 3].flatMap((n) => requests(s, n));
      const answers = await Promise.all(
        all.map(async ([what, options]) => ({ what, ...(await timed(s.app, options)) })),
      );
      const slowest = Math.max(...answers.map((a) => a.ms));
      for (const { what, res, ms } of answers) {
        t.ok(ms < BOUND_MS, `${what} answered in ${ms} ms`);
        isUnavailable(t, what, res);
      }
      t.comment(
        `PostgreSQL ${fault}: ${answers.length} requests at once, ` +
          `slowest answered in ${slowest} ms (bound ${BOUND_MS} ms)`,
      );
    });

    t.test(`/readyz answers 503 within ${READY_BOUND_MS} ms`, async (t) => {
      const { res, ms } = await timed(s.app, { url: '/readyz' });
      isUnavailable(t, '/readyz', res, 'the database cannot be reached');
      t.ok(ms < READY_BOUND_MS, `/readyz answered in ${ms} ms`);
    });

    t.test("OFREP evaluations that need the database answer 503 in OFREP's shape, within the bound", async (t) => {
      const { res, ms } = await timed(s.app, {
        method: 'POST',
        url: `/ofrep/v1/evaluate/flags/${FLAG}`,
        headers: s.otto,
        payload: { context: { org: 'acme', clusterId: s.cluster.id } },
      });
      t.ok(ms < BOUND_MS, `answered in ${ms} ms`);
      t.equal(res.statusCode, 503);
      t.equal(res.headers['retry-after'], '2');
      t.same(res.json(), { errorDetails: DATABASE_UNAVAILABLE });
    });

    t.test('reading the platform flags serves the last value seen, within the bound', async (t) => {
      const { res, ms } = await timed(s.app, { url: '/api/v1/platform/feature-flags', headers: s.otto });
      t.ok(ms < BOUND_MS, `answered in ${ms} ms`);
      t.equal(res.statusCode, 200);
    });

    t.test('once healed, the same process answers again, without a restart', async (t) => {
      s.db.restore();
      const ready = async () => ((await s.app.inject('/readyz')).statusCode === 200 ? true : undefined);
      t.ok(await until('/readyz to answer 200', ready, 10_000, 50));
      for (const [what, options] of requests(s, 9)) {
        const res = await until(
          `${what} to succeed`,
          async () => {
            const r = await s.app.inject(options);
            return r.statusCode === 503 ? undefined : r;
          },
          10_000,
          50,
        );
        t.ok(res.statusCode < 300, `${what}: ${res.statusCode}`);
        if (what === 'a platform flag write' || what === 'a cluster flag write') succeeded.flagWrites += 1;
        if (what === 'a member write') succeeded.memberWrites += 1;
      }
    });

    t.test(
      'no write was half done: every value stored has its audit row and outbox event, and nothing else was',
      async (t) => {
        const after = await ledger(s.app);
        t.equal(after.audits - before.audits, succeeded.flagWrites, 'one audit row per flag write that answered 200');
        t.equal(
          after.outbox - before.outbox,
          succeeded.flagWrites,
          'one outbox event per flag write that answered 200',
        );
        t.equal(
          after.members - before.members,
          succeeded.memberWrites,
          'one member per member write that answered 200',
        );
        t.equal(after.memberAudits - before.memberAudits, succeeded.memberWrites);
      },
    );
  });
}

t.test(
  'with the default timeouts, a write to a stalled PostgreSQL answers 503 within 8.5 s, and /readyz within 2 s',
  async (t) => {
    let db: (FaultyLink & { url: string }) | undefined;
    const { app } = await build(t, {}, async (url) => {
      db = await cuttableDatabaseUrl(t, url);
      return db.url;
    });
    t.teardown(() => db!.restore());
    const admin = await bearer(PLATFORM_ADMIN);
    await warm(app, 3);
    db!.stall();
    const [write, ready] = await Promise.all([
      timed(app, { method: 'PUT', url: platformFlag, headers: admin, payload: { value: false } }),
      timed(app, { url: '/readyz' }),
    ]);
    isUnavailable(t, 'the write', write.res);
    // At most DATABASE_CONNECT_TIMEOUT 2 s + DATABASE_STATEMENT_TIMEOUT 5 s + 1 s for the answer;
    // here a pooled connection was free, so the statement's 6 s.
    t.ok(write.ms >= 5000 && write.ms < 8500, `the write answered in ${write.ms} ms`);
    isUnavailable(t, '/readyz', ready.res, 'the database cannot be reached');
    t.ok(ready.ms < READY_TIMEOUT_MS + 500, `/readyz answered in ${ready.ms} ms`);
    t.comment(`default timeouts, PostgreSQL stalled: write 503 after ${write.ms} ms, /readyz 503 after ${ready.ms} ms`);
  },
);

for (const fault of ['stall', 'cut'] as const) {
  const how = fault === 'stall' ? 'stalled' : 'cut';
  t.test(`Redis ${how}: writes are taken at once, and their events are published once it is back`, async (t) => {
    const prefix = redisPrefix();
    const redis = await cuttableRedisUrl(t, TEST_REDIS_URL);
    const { app } = await build(t, { REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, OUTBOX_POLL_INTERVAL: '200ms' });
    t.teardown(() => redis.restore());
    const listener = new Redis(TEST_REDIS_URL);
    t.teardown(() => listener.disconnect());
    const events: string[] = [];
    listener.on('message', (_channel: string, message: string) => events.push(message));
    await listener.subscribe(`${prefix}featureflags.updated`);
    const admin = await bearer(PLATFORM_ADMIN);

    redis[fault]();
    for (const value of [false, true, false]) {
      const { res, ms } = await timed(app, { method: 'PUT', url: platformFlag, headers: admin, payload: { value } });
      t.equal(res.statusCode, 200, `a write while Redis is ${fault === 'stall' ? 'stalled' : 'cut'} is taken`);
      t.ok(ms < 1000, `and answered in ${ms} ms`);
    }
    const { res: ready, ms: readyMs } = await timed(app, { url: '/readyz' });
    t.equal(ready.statusCode, 200, '/readyz does not depend on Redis');
    t.ok(readyMs < READY_BOUND_MS);
    const read = await timed(app, { url: '/api/v1/platform/feature-flags', headers: admin });
    t.equal(read.res.statusCode, 200);
    t.equal(read.res.json().flags[0].value, false, 'this process reads its own last write');
    t.ok(read.ms < 1000, `read in ${read.ms} ms`);

    // Delivery is at least once: an event whose publish timed out may arrive twice; its outbox id tells.
    const published = () => {
      const byId = new Map(
        events.map((e) => JSON.parse(e) as { id: string; value: boolean }).map((e) => [e.id, e.value]),
      );
      return [...byId.values()];
    };
    redis.restore();
    const healed = performance.now();
    await until('the three writes to be published', () => (published().length >= 3 ? true : undefined), 20_000, 20);
    const after = Math.round(performance.now() - healed);
    t.same(
      published(),
      [false, true, false],
      `the three events reached subscribers in order, ${after} ms after Redis came back`,
    );
    const { res: again } = await timed(app, {
      method: 'PUT',
      url: platformFlag,
      headers: admin,
      payload: { value: true },
    });
    t.equal(again.statusCode, 200);
    await until(
      'a write after healing to be published',
      () => (published().length >= 4 ? true : undefined),
      10_000,
      20,
    );
    t.same(published(), [false, true, false, true]);
  });
}
