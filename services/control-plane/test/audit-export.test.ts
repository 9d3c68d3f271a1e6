import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromBinary } from '@bufbuild/protobuf';
import type { FastifyInstance } from 'fastify';
import { ExportLogsServiceRequestSchema, verifySignature } from '@gsp/audit-export';
import { laterReceiver, startReceiver, webhookEvents } from '@gsp/audit-export/testing';
import type { Received } from '@gsp/audit-export/testing';
import { ADMIN_PASSWORD, ADMIN_USER, build, createKey, startKube, until } from './helper.js';

const SECRET = 'the-webhook-signing-secret-of-this-test';

function spoolDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'gsp-audit-spool-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs `n` requests through `send`, `concurrency` at a time; the answers' statuses, in order of sending. */
async function many(n: number, concurrency: number, send: (i: number) => Promise<number>): Promise<number[]> {
  const statuses = new Array<number>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        statuses[i] = await send(i);
      }
    }),
  );
  return statuses;
}

/** The spool sequence of a record id (`<epoch>-<seq>`). */
const seqOf = (id: string) => Number(id.slice(id.lastIndexOf('-') + 1));

async function counter(app: FastifyInstance, name: string, labels: Record<string, string>): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric(name)?.get();
  const value = metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
  return value ?? 0;
}

t.test(
  '10,000 requests while the webhook is down, then answers 503 with Retry-After, then 200: ' +
    'every record arrives at both sinks, in order',
  async (t) => {
    const kube = await startKube(t);
    // Once up, the webhook is busy for its first 3 requests: 503 with Retry-After: 1.
    const refusedAt: number[] = [];
    const webhook = await laterReceiver((request) => {
      if (refusedAt.length >= 3) return { status: 200 };
      refusedAt.push(request.at);
      return { status: 503, headers: { 'retry-after': '1' } };
    });
    t.teardown(() => webhook.close());
    const otlp = await laterReceiver(() => ({ status: 200 }));
    await otlp.up();
    t.teardown(() => otlp.close());
    const { app, audit } = await build(t, kube, {
      AUTH_MODE: 'none',
      RATE_LIMIT_MAX: '1000000',
      AUDIT_WEBHOOK_URL: webhook.url,
      AUDIT_WEBHOOK_SECRET: SECRET,
      AUDIT_OTLP_URL: otlp.url,
      AUDIT_SPOOL_DIR: spoolDir(t),
      AUDIT_EXPORT_BACKOFF_BASE: '20ms',
      AUDIT_EXPORT_BACKOFF_MAX: '300ms',
      REPLICA_ID: 'cp-test-0',
    });
    const send = async () => (await app.inject({ method: 'GET', url: '/api/v1/session' })).statusCode;
    const first = await many(5000, 32, send);
    t.ok(
      first.every((s) => s === 200),
      'the first 5,000 answered while the webhook is down',
    );
    t.equal(
      (await app.inject({ method: 'GET', url: '/readyz' })).statusCode,
      200,
      '/readyz stays 200 while a sink is down (the spool is not full)',
    );
    await webhook.up();
    const second = await many(5000, 32, send);
    t.ok(
      second.every((s) => s === 200),
      'and the next 5,000 while it answers 503',
    );
    const written = audit.lines().map((l) => l.requestId as string);
    t.equal(written.length, 10_000, 'one stdout line per request');

    const deliveredIds = (requests: Received[]) =>
      requests.flatMap((r) => (JSON.parse(r.body.toString()) as { id: string }[]).map((e) => e.id));
    await until('every record at the webhook', () => new Set(deliveredIds(webhook.requests)).size >= 10_000, 120_000);
    const events = webhook.requests.flatMap((r) => webhookEvents(r));
    const ids = events.map((e) => e.id);
    const distinct = new Set(ids);
    t.equal(distinct.size, 10_000, 'the distinct ids are the 10,000 records written');
    t.same(
      new Set(events.map((e) => (e.data as { requestId: string }).requestId)),
      new Set(written),
      'the records are those of the stdout lines',
    );
    t.ok(
      webhook.requests.every((r) =>
        verifySignature(r.headers['gsp-signature'] as string | undefined, r.body, SECRET, 300_000),
      ),
      'every batch is signed',
    );
    t.same([...new Set(events.map((e) => e.source))], ['/gsp/control-plane/cp-test-0'], 'the source names the replica');
    const firstSeen: number[] = [];
    const seen = new Set<string>();
    for (const id of ids) if (!seen.has(id) && seen.add(id)) firstSeen.push(seqOf(id));
    t.ok(
      firstSeen.every((seq, i) => i === 0 || seq > (firstSeen[i - 1] as number)),
      'in order: each record first arrives after the one written before it',
    );
    t.comment(
      `webhook: ${webhook.requests.length} requests, ${ids.length} events for 10,000 records ` +
        `(${ids.length - 10_000} in the 3 refused batches)`,
    );
    const gaps = refusedAt.map((at) => (webhook.requests.find((r) => r.at > at)?.at ?? at) - at);
    t.ok(
      gaps.every((ms) => ms >= 950),
      `each 503 with Retry-After: 1 was followed by a wait of about a second (${gaps.map(Math.round).join(', ')} ms)`,
    );

    await until(
      'every record at the OTLP collector',
      () => {
        let n = 0;
        for (const r of otlp.requests)
          n += fromBinary(ExportLogsServiceRequestSchema, r.body).resourceLogs[0]?.scopeLogs[0]?.logRecords.length ?? 0;
        return n >= 10_000;
      },
      60_000,
    );
    const services = new Set<unknown>();
    const logs = otlp.requests.flatMap((r) => {
      const resource = fromBinary(ExportLogsServiceRequestSchema, r.body).resourceLogs[0];
      for (const a of resource?.resource?.attributes ?? [])
        if (a.key === 'service.name') services.add(a.value?.value.value);
      return (resource?.scopeLogs[0]?.logRecords ?? []).map((l) =>
        Object.fromEntries(l.attributes.map((a) => [a.key, a.value?.value.value])),
      );
    });
    t.same([...services], ['gsp-control-plane'], 'OTLP: the resource names the service');
    t.equal(new Set(logs.map((a) => a['event.id'])).size, 10_000, 'OTLP: each record once (it was never down)');
    t.same(
      new Set(logs.map((a) => a['gsp.audit.requestId'])),
      new Set(written),
      'OTLP: the request id attribute of each record intact',
    );
    const sample = logs.find((a) => a['gsp.audit.path'] === '/api/v1/session');
    t.match(
      sample,
      { 'gsp.audit.method': 'GET', 'gsp.audit.status': 200n, 'gsp.audit.result': 'success' },
      'OTLP: the audit fields as attributes',
    );
    // The receiver has the last batch a moment before the shipper has its answer and counts it.
    const counted = () => counter(app, 'gsp_audit_export_records_total', { sink: 'webhook', result: 'delivered' });
    await until('the last batch counted', async () => (await counted()) >= 10_000, 10_000);
    t.equal(await counted(), 10_000, 'gsp_audit_export_records_total{result="delivered"} counts each record once');
  },
);

t.test(
  'a full spool: block answers 503 and turns unready until the sink catches up; ' +
    'drop serves on and counts exactly what it drops',
  async (t) => {
    const kube = await startKube(t);
    for (const full of ['block', 'drop'] as const) {
      await t.test(full, async (t) => {
        const webhook = await laterReceiver(() => ({ status: 200 }));
        t.teardown(() => webhook.close());
        const { app, audit } = await build(t, kube, {
          AUTH_MODE: 'none',
          AUDIT_WEBHOOK_URL: webhook.url,
          AUDIT_SPOOL_DIR: spoolDir(t),
          AUDIT_SPOOL_MAX_BYTES: String(64 * 1024),
          AUDIT_SPOOL_FULL: full,
          AUDIT_EXPORT_BACKOFF_BASE: '20ms',
          AUDIT_EXPORT_BACKOFF_MAX: '200ms',
        });
        const send = async () => await app.inject({ method: 'GET', url: '/api/v1/session' });
        // The webhook is down: the spool fills (64 KiB is some 150 records).
        const answers = [];
        for (let i = 0; i < 600; i++) answers.push(await send());
        const refused = answers.filter((a) => a.statusCode === 503);
        if (full === 'block') {
          t.ok(refused.length > 0 && refused.length < 600, `${600 - refused.length} answered, then 503`);
          t.ok(
            answers.slice(answers.findIndex((a) => a.statusCode === 503)).every((a) => a.statusCode === 503),
            'every request after the spool filled',
          );
          t.equal(refused[0]?.headers['retry-after'], '5');
          t.match(refused[0]?.json(), { status: 503, detail: /audit spool is full/ });
          const ready = await app.inject({ method: 'GET', url: '/readyz' });
          t.equal(ready.statusCode, 503, '/readyz: not ready while requests are refused');
          await webhook.up();
          await until(
            'requests served again once the sink has caught up',
            async () => (await send()).statusCode === 200,
            30_000,
          );
          t.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200, 'ready again');
        } else {
          t.equal(refused.length, 0, 'every request answered 2xx');
          await webhook.up();
          const written = () => audit.lines().length;
          const delivered = () =>
            new Set(
              webhook.requests.flatMap((r) => (JSON.parse(r.body.toString()) as { id: string }[]).map((e) => e.id)),
            ).size;
          const dropped = () => counter(app, 'gsp_audit_export_records_total', { sink: 'webhook', result: 'dropped' });
          await until(
            'every record kept is delivered',
            async () => delivered() + (await dropped()) === written(),
            30_000,
          );
          t.ok((await dropped()) > 0, `${await dropped()} records dropped`);
          t.equal(
            written() - delivered(),
            await dropped(),
            'the dropped count is exactly the records that never arrived',
          );
        }
      });
    }
  },
);

t.test('no credential of a request appears in its exported record, wherever the caller put it', async (t) => {
  const kube = await startKube(t);
  const webhook = await laterReceiver(() => ({ status: 200 }));
  await webhook.up();
  t.teardown(() => webhook.close());
  const otlp = await laterReceiver(() => ({ status: 200 }));
  await otlp.up();
  t.teardown(() => otlp.close());
  const dir = spoolDir(t);
  const { app, audit } = await build(t, kube, {
    AUDIT_WEBHOOK_URL: webhook.url,
    AUDIT_OTLP_URL: otlp.url,
    AUDIT_SPOOL_DIR: dir,
  });
  const basic = `Basic ${Buffer.from(`${ADMIN_USER}:${ADMIN_PASSWORD}`).toString('base64')}`;
  const key = await createKey(app, 'auditor');
  const bearer = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.c2lnbmF0dXJlLW9mLWEtdG9rZW4';
  const ticket = 'tk_4f1c0ffee4f1c0ffee4f1c0ffee';
  const secrets = [ADMIN_PASSWORD, key, bearer, ticket];
  const everywhere = (secret: string) => ({
    method: 'POST' as const,
    url:
      `/api/v1/gameservers/${encodeURIComponent(secret)}/x` +
      `?ticket=${encodeURIComponent(ticket)}&token=${encodeURIComponent(secret)}`,
    headers: { 'user-agent': `client/1.0 (${secret})`, 'content-type': 'application/json' },
    payload: { password: secret, token: secret },
  });
  const requests = [
    { ...everywhere(ADMIN_PASSWORD), headers: { ...everywhere(ADMIN_PASSWORD).headers, authorization: basic } },
    { ...everywhere(key), headers: { ...everywhere(key).headers, 'x-api-key': key } },
    { ...everywhere(bearer), headers: { ...everywhere(bearer).headers, authorization: `Bearer ${bearer}` } },
    {
      method: 'GET' as const,
      url: `/api/v1/session?ticket=${ticket}`,
      headers: { 'x-api-key': key, 'user-agent': ticket },
    },
    {
      method: 'GET' as const,
      url: `/api/v1/profiles/${encodeURIComponent(ADMIN_PASSWORD)}`,
      headers: { authorization: basic },
    },
  ];
  for (const r of requests) await app.inject(r);
  const n = audit.lines().length;
  await until(
    'the records at both sinks',
    () => {
      const events = webhook.requests.flatMap((r) => JSON.parse(r.body.toString()) as unknown[]).length;
      const logs = otlp.requests.reduce(
        (sum, r) =>
          sum +
          (fromBinary(ExportLogsServiceRequestSchema, r.body).resourceLogs[0]?.scopeLogs[0]?.logRecords.length ?? 0),
        0,
      );
      return events >= n && logs >= n;
    },
    20_000,
  );
  const exported = [
    ...webhook.requests.map((r) => r.body.toString()),
    ...otlp.requests.map((r) => r.body.toString('latin1')),
    ...audit.text,
    ...readdirSync(dir)
      .filter((f) => f.endsWith('.seg'))
      .map((f) => readFileSync(join(dir, f), 'utf8')),
  ].join('\n');
  for (const secret of secrets)
    for (const form of new Set([secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')]))
      t.notOk(exported.includes(form), `${form.slice(0, 6)}… is in no record (webhook, OTLP, stdout, spool)`);
  t.notOk(exported.includes(basic.slice(6)), 'nor the Basic credentials');
  t.ok(exported.includes('[REDACTED]'), 'where a caller put one, the record says [REDACTED]');
});

/** A gauge's value as a scrape of /metrics shows it now (the registry /metrics serves). */
async function scraped(app: FastifyInstance, name: string, sink: string): Promise<number> {
  const text = await app.metrics.registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{sink="${sink}"} `));
  return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}

t.test(
  'while the receiver never answers, a scrape shows every record waiting and the age of the oldest, at once',
  async (t) => {
    const kube = await startKube(t);
    const webhook = await startReceiver(() => ({ status: 200, hang: true }));
    t.teardown(() => webhook.close());
    const { app, audit } = await build(t, kube, {
      AUTH_MODE: 'none',
      AUDIT_WEBHOOK_URL: webhook.url,
      AUDIT_SPOOL_DIR: spoolDir(t),
      // Closing does not wait for a receiver that never answers.
      AUDIT_SPOOL_DRAIN: '0s',
    });
    await many(300, 20, async () => (await app.inject({ method: 'GET', url: '/api/v1/session' })).statusCode);
    await until('the first batch at the receiver, which never answers', () => webhook.requests.length > 0, 10_000);
    t.equal(await scraped(app, 'gsp_audit_export_queued', 'webhook'), audit.lines().length, 'queued: all 300 records');
    const age = await scraped(app, 'gsp_audit_export_oldest_age_seconds', 'webhook');
    t.ok(age > 0, `the oldest is ${age} s old`);
    await many(150, 20, async () => (await app.inject({ method: 'GET', url: '/api/v1/session' })).statusCode);
    t.equal(
      await scraped(app, 'gsp_audit_export_queued', 'webhook'),
      450,
      'the next scrape counts the 150 records since, with no batch finished in between',
    );
    t.ok((await scraped(app, 'gsp_audit_export_oldest_age_seconds', 'webhook')) >= age, 'and the oldest only ages');
  },
);

t.test('under block a full spool refuses requests and drops no record of one it let in', async (t) => {
  const kube = await startKube(t);
  const webhook = await startReceiver(() => ({ status: 200, hang: true }));
  t.teardown(() => webhook.close());
  const dir = spoolDir(t);
  const { app, audit } = await build(t, kube, {
    AUTH_MODE: 'none',
    AUDIT_WEBHOOK_URL: webhook.url,
    AUDIT_SPOOL_DIR: dir,
    AUDIT_SPOOL_MAX_BYTES: String(64 * 1024),
    AUDIT_SPOOL_FULL: 'block',
    AUDIT_SPOOL_DRAIN: '0s',
  });
  // Many at once: requests let in before the spool filled are still running when it does.
  const statuses = await many(600, 50, async () => {
    return (await app.inject({ method: 'GET', url: '/api/v1/session' })).statusCode;
  });
  const served = statuses.filter((s) => s === 200).length;
  t.ok(served > 0 && served < 600, `${served} served, ${600 - served} refused with 503`);
  t.equal(
    await counter(app, 'gsp_audit_export_records_total', { sink: 'webhook', result: 'dropped' }),
    0,
    'dropped stays 0: block refuses requests, it does not lose records',
  );
  const spooled = readdirSync(dir)
    .filter((f) => f.endsWith('.seg'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter((l) => l !== '').length;
  t.equal(spooled, served, 'the spool holds the record of every request served');
  t.equal(await scraped(app, 'gsp_audit_export_queued', 'webhook'), served, 'and queued says so');
  t.equal(audit.lines().length, 600, 'stdout has every line, the refusals too');
});
