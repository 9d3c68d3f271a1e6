import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import t from 'tap';
import fc from 'fast-check';
import pg from 'pg';
import { waitUntil } from '@gsp/service-kit';
import { csvRecord } from '../src/audit-log/formats.js';
import { DOWNLOAD_BATCH_SIZE } from '../src/audit-log/download.js';
import { bearer, build, cuttableDatabaseUrl, PLATFORM_ADMIN, registerCluster, seedTenant } from './helper.js';

interface Item {
  id: string;
  action: string;
  actor: string;
  resource: string;
  details: Record<string, unknown>;
  requestId?: string;
  createdAt: string;
}

/** A small RFC 4180 reader: quoted and bare fields, "" inside quotes, CRLF between records. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let i = 0;
  while (i < text.length) {
    const record: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i += 1;
        for (;;) {
          const quote = text.indexOf('"', i);
          if (quote < 0) throw new Error('unterminated quoted field');
          field += text.slice(i, quote);
          i = quote + 1;
          if (text[i] !== '"') break;
          field += '"';
          i += 1;
        }
      } else {
        const end = text.slice(i).search(/[,\r\n"]/);
        const stop = end < 0 ? text.length : i + end;
        if (text[stop] === '"') throw new Error(`a quote inside a bare field at ${stop}`);
        field = text.slice(i, stop);
        i = stop;
      }
      record.push(field);
      if (text[i] === ',') {
        i += 1;
        continue;
      }
      if (text.startsWith('\r\n', i)) {
        i += 2;
        break;
      }
      throw new Error(`expected a comma or CRLF at ${i}, found ${JSON.stringify(text.slice(i, i + 5))}`);
    }
    records.push(record);
  }
  return records;
}

/** The value a cell stands for: the download prefixes ' to cells that could run as a formula, and to a leading '. */
const valueOf = (cell: string): string => (cell.startsWith("'") ? cell.slice(1) : cell);
const FORMULA = /^[=+\-@\t\r]/;

const { app, databaseUrl } = await build(t);
const admin = await bearer(PLATFORM_ADMIN);
const ada = await bearer('ada');
const db = new pg.Client({ connectionString: databaseUrl });
await db.connect();
t.teardown(() => db.end());

await seedTenant(app, 'acme', { ada: 'admin', vic: 'viewer' });
await seedTenant(app, 'globex', { gina: 'admin' });
const eu = await registerCluster(app, 'acme', 'eu-1');
const gx = await registerCluster(app, 'globex', 'gx-1');
for (const reason of ['=HYPERLINK("http://evil.example","x")', 'plain, with a comma', 'two\r\nlines "quoted"']) {
  const put = await app.inject({
    method: 'PUT',
    url: '/api/v1/platform/feature-flags/cli_access.enabled',
    headers: admin,
    payload: { value: true, reason: reason.replace(/\r\n/, ' ') },
  });
  if (put.statusCode !== 200) throw new Error(put.body);
}

async function pages(base: string, headers: Record<string, string>, query = ''): Promise<Item[]> {
  const seen: Item[] = [];
  let cursor: string | null = null;
  do {
    const res: { statusCode: number; body: string; json: () => unknown } = await app.inject({
      url: `${base}?limit=500&${query}${cursor === null ? '' : `&cursor=${cursor}`}`,
      headers,
    });
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
    const page = res.json() as { items: Item[]; nextCursor: string | null };
    seen.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return seen.reverse();
}

const ndjson = (body: string): Item[] =>
  body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Item);

/** A CSV download's records as items, checked cell by cell for formula starts. */
function fromCsv(body: string): { header: string[]; items: Item[]; formulaCells: string[] } {
  const [header = [], ...rows] = parseCsv(body);
  const formulaCells = rows.flat().filter((cell) => FORMULA.test(cell));
  const items = rows.map((cells) => {
    const [id, createdAt, action, actor, resource, requestId, details] = cells.map(valueOf);
    return {
      id: id!,
      createdAt: createdAt!,
      action: action!,
      actor: actor!,
      resource: resource!,
      ...(requestId === '' ? {} : { requestId: requestId! }),
      details: JSON.parse(details!) as Record<string, unknown>,
    };
  });
  return { header, items, formulaCells };
}

const ROUTES = [
  ['/api/v1/platform/audit', admin, 'platform'],
  ['/api/v1/tenants/acme/audit', ada, 'acme'],
] as const;

t.test('NDJSON, by ?format= or by Accept: every matching entry, oldest first, as a file', async (t) => {
  for (const [base, headers, name] of ROUTES) {
    const expected = await pages(base, headers);
    t.ok(expected.length >= 3, `${base}: ${expected.length} entries`);
    for (const [query, accept] of [
      ['format=ndjson', undefined],
      ['', 'application/x-ndjson'],
      ['', 'text/html;q=0.9, application/x-ndjson'],
    ] as const) {
      const res = await app.inject({ url: `${base}?${query}`, headers: { ...headers, ...(accept ? { accept } : {}) } });
      t.equal(res.statusCode, 200, `${base}?${query} ${accept ?? ''}`);
      t.equal(res.headers['content-type'], 'application/x-ndjson; charset=utf-8');
      t.match(
        res.headers['content-disposition'],
        new RegExp(`^attachment; filename="audit-${name}-\\d{8}T\\d{6}Z\\.ndjson"$`),
      );
      t.equal(res.headers['cache-control'], 'no-store');
      t.match(res.headers.vary, /accept/i);
      t.same(ndjson(res.body), expected, 'the same entries as the pages, oldest first');
    }
  }
  const json = await app.inject({ url: '/api/v1/platform/audit', headers: { ...admin, accept: '*/*' } });
  t.match(json.headers['content-type'], /^application\/json/, 'JSON pages stay the default');
  const both = await app.inject({
    url: '/api/v1/platform/audit?format=json',
    headers: { ...admin, accept: 'text/csv' },
  });
  t.match(both.headers['content-type'], /^application\/json/, '?format= wins over Accept');
});

t.test('CSV: a header row, RFC 4180 records, details as JSON, no cell a formula', async (t) => {
  for (const [base, headers, name] of ROUTES) {
    const expected = await pages(base, headers);
    for (const [query, accept] of [
      ['format=csv', undefined],
      ['', 'text/csv'],
    ] as const) {
      const res = await app.inject({ url: `${base}?${query}`, headers: { ...headers, ...(accept ? { accept } : {}) } });
      t.equal(res.statusCode, 200);
      t.equal(res.headers['content-type'], 'text/csv; charset=utf-8; header=present');
      t.match(
        res.headers['content-disposition'],
        new RegExp(`^attachment; filename="audit-${name}-\\d{8}T\\d{6}Z\\.csv"$`),
      );
      const { header, items, formulaCells } = fromCsv(res.body);
      t.same(header, ['id', 'createdAt', 'action', 'actor', 'resource', 'requestId', 'details']);
      t.same(items, expected, `${base}: every entry, cell for cell`);
      t.same(formulaCells, []);
    }
  }
  const platform = fromCsv((await app.inject({ url: '/api/v1/platform/audit?format=csv', headers: admin })).body);
  t.ok(
    platform.items.some((i) => i.details.reason === '=HYPERLINK("http://evil.example","x")'),
    'a reason that is a formula comes back whole, inside the JSON cell',
  );
});

t.test("a tenant's download holds its own entries only, through every filter", async (t) => {
  const res = await app.inject({ url: '/api/v1/tenants/acme/audit?format=ndjson', headers: ada });
  const rows = ndjson(res.body);
  t.ok(rows.length > 0);
  t.notOk(
    rows.some(
      (i) => i.resource === `cluster:${gx.id}` || i.resource === 'tenant:globex' || i.resource.startsWith('platform:'),
    ),
    'no entry of globex or of the platform',
  );
  for (const query of [`cluster=${gx.id}`, 'actor=gina', `actor=${PLATFORM_ADMIN}&action=featureflags.set`]) {
    const other = await app.inject({ url: `/api/v1/tenants/acme/audit?format=csv&${query}`, headers: ada });
    t.same(fromCsv(other.body).items, [], query);
  }
  const own = await app.inject({ url: `/api/v1/tenants/acme/audit?format=ndjson&cluster=${eu.id}`, headers: ada });
  t.same(
    ndjson(own.body).map((i) => i.action),
    ['clusters.registered'],
  );
});

t.test('the same rights as the pages', async (t) => {
  const vic = await bearer('vic');
  const gina = await bearer('gina');
  for (const format of ['ndjson', 'csv']) {
    t.equal(
      (await app.inject({ url: `/api/v1/tenants/acme/audit?format=${format}`, headers: vic })).statusCode,
      403,
      'a viewer',
    );
    t.equal(
      (await app.inject({ url: `/api/v1/tenants/acme/audit?format=${format}`, headers: gina })).statusCode,
      403,
      "another tenant's admin",
    );
    t.equal(
      (await app.inject({ url: `/api/v1/platform/audit?format=${format}`, headers: ada })).statusCode,
      403,
      'a tenant admin, the platform audit',
    );
    const anonymous = await app.inject({ url: `/api/v1/platform/audit?format=${format}` });
    t.equal(anonymous.statusCode, 401);
    t.notOk(anonymous.headers['content-disposition']);
  }
});

t.test('an unknown format is 400, an Accept we cannot serve is 406, limit and cursor are for pages', async (t) => {
  const xml = await app.inject({ url: '/api/v1/platform/audit?format=xml', headers: admin });
  t.equal(xml.statusCode, 400);
  t.match(xml.json(), { errors: [{ pointer: '#/format', detail: 'format must be one of json, ndjson, csv' }] });
  const accept = await app.inject({ url: '/api/v1/platform/audit', headers: { ...admin, accept: 'application/xml' } });
  t.equal(accept.statusCode, 406);
  t.match(accept.headers['content-type'], /^application\/problem\+json/);
  t.match(accept.json(), { detail: /application\/json, application\/x-ndjson, text\/csv/ });
  const refused = await app.inject({
    url: '/api/v1/platform/audit',
    headers: { ...admin, accept: 'text/csv;q=0, application/json;q=0, */*' },
  });
  t.equal(refused.statusCode, 200, 'q=0 refuses a type; */* still takes the next one');
  t.match(refused.headers['content-type'], /^application\/x-ndjson/);
  for (const query of ['format=ndjson&limit=10', 'format=csv&cursor=YToxMA']) {
    const res = await app.inject({ url: `/api/v1/platform/audit?${query}`, headers: admin });
    t.equal(res.statusCode, 400, query);
    t.match(res.json(), { detail: /is for JSON pages/ });
  }
});

t.test('CSV cells read back as the values written, and none starts as a formula (property)', async (t) => {
  const text = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc
      .tuple(
        fc.constantFrom('=', '+', '-', '@', '\t', '\r', "'", '"', ',', '\n', '\r\n'),
        fc.string({ unit: 'binary', maxLength: 10 }),
      )
      .map(([a, b]) => a + b),
  );
  fc.assert(
    fc.property(fc.array(text, { minLength: 1, maxLength: 8 }), (cells) => {
      const records = parseCsv(csvRecord(cells));
      return (
        records.length === 1 &&
        records[0]!.length === cells.length &&
        records[0]!.every((cell, i) => valueOf(cell) === cells[i] && !FORMULA.test(cell))
      );
    }),
    { numRuns: 2000 },
  );
  // And through the route: entries stored with such values come back in the download as stored.
  const stored = fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).filter((s) => !s.includes('\u0000'));
  await fc.assert(
    fc.asyncProperty(fc.tuple(text, stored, text, text), async ([actor, action, resource, reason]) => {
      const clean = (s: string) => s.replaceAll('\u0000', '');
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO audit_events (action, actor, resource, details) VALUES ($1, $2, $3, $4) RETURNING id`,
        [clean(action), clean(actor), clean(resource), JSON.stringify({ reason: clean(reason) })],
      );
      const id = rows[0]!.id;
      const res = await app.inject({
        url: `/api/v1/platform/audit?format=csv&since=2000-01-01T00:00:00Z`,
        headers: admin,
      });
      const { items, formulaCells } = fromCsv(res.body);
      const item = items.find((i) => i.id === id);
      return (
        formulaCells.length === 0 &&
        item?.actor === clean(actor) &&
        item.action === clean(action) &&
        item.resource === clean(resource) &&
        item.details.reason === clean(reason)
      );
    }),
    { numRuns: 40 },
  );
  t.pass('2,000 records encoded and 40 entries stored and downloaded');
});

/** GETs `path` from a listening server, with a hook on the response as it starts. */
function get(url: string, headers: Record<string, string>, onResponse: (res: IncomingMessage) => void): void {
  httpRequest(url, { headers }, onResponse).end();
}

/** Appends `count` entries of about `padBytes` bytes each straight into the table, as history would. */
async function bulk(client: pg.Client, count: number, padBytes: number): Promise<void> {
  await client.query(
    `INSERT INTO audit_events (action, actor, resource, details)
     SELECT 'bulk.row', 'bulk', 'platform:bulk', jsonb_build_object('n', g, 'pad', repeat('x', $2::int))
     FROM generate_series(1, $1::int) g`,
    [count, padBytes],
  );
}

t.test('5,000 entries stream as NDJSON, read from the database only as the client takes them', async (t) => {
  const { app: server, databaseUrl: url } = await build(t);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.teardown(() => client.end());
  // Entries of 8 KB: 40 MB in all, more than the socket buffers between client and server can hold,
  // so a client that stops reading stops the server's reads too.
  await bulk(client, 5000, 8000);
  const address = await server.listen({ port: 0, host: '127.0.0.1' });
  const headers = await bearer(PLATFORM_ADMIN);

  // Read whole, measuring what the heap holds as it goes: the client keeps no chunk and makes no
  // string of one, so what is held is the server's. With --expose-gc the heap is collected before each
  // sample (every 2 MB received), so the figure is what is live, not garbage awaiting collection.
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  let sampledAt = 0;
  const whole = await new Promise<{ lines: number; bytes: number; head: string }>((resolve, reject) => {
    get(`${address}/api/v1/platform/audit?format=ndjson&action=bulk.row`, headers, (res) => {
      let bytes = 0;
      let lines = 0;
      let head = '';
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes - sampledAt >= 2e6) {
          sampledAt = bytes;
          gc?.();
          heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
        }
        if (head.length < 20_000) head += chunk.toString('latin1', 0, 20_000);
        for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines += 1;
      });
      res.on('end', () => resolve({ lines, bytes, head }));
      res.on('error', reject);
    });
  });
  const firstIds = [...whole.head.matchAll(/^\{"id":"(\d+)"/gm)].map((m) => BigInt(m[1]!));
  t.equal(whole.lines, 5000, 'every entry');
  t.ok(firstIds.length >= 2 && firstIds[0]! < firstIds[1]!, 'oldest first');
  t.comment(
    `${(whole.bytes / 1e6).toFixed(1)} MB streamed; ` +
      `heap peak ${((heapPeak - heapBefore) / 1e6).toFixed(1)} MB above the start` +
      `${gc ? ', live after collection' : ' (run with --expose-gc to see what is live)'}` +
      ` (batches of ${DOWNLOAD_BATCH_SIZE})`,
  );

  // Now stop reading after the first bytes and delete the entries the server has not sent: if it had
  // read them all at the start, they would still arrive; read page by page, the download ends short.
  let received = 0;
  const done = new Promise<number>((resolve, reject) => {
    get(`${address}/api/v1/platform/audit?format=ndjson&action=bulk.row`, headers, (res) => {
      res.setEncoding('utf8');
      res.once('data', () => {
        res.pause();
        void client.query(`DELETE FROM audit_events WHERE action = 'bulk.row'`).then(() => res.resume(), reject);
      });
      res.on('data', (chunk: string) => {
        received += chunk.split('\n').length - 1;
      });
      res.on('end', () => resolve(received));
      res.on('error', reject);
    });
  });
  const lines = await done;
  t.ok(lines > 0 && lines < 5000, `${lines} of 5,000 entries arrived: those read before the delete`);
  t.equal(lines % DOWNLOAD_BATCH_SIZE, 0, 'whole pages of them');
});

t.test('a download that fails midway ends as a broken transfer, never as a complete file', async (t) => {
  let link: Awaited<ReturnType<typeof cuttableDatabaseUrl>> | undefined;
  let direct = '';
  const { app: server } = await build(t, {}, async (url) => {
    direct = url;
    link = await cuttableDatabaseUrl(t, url);
    return link.url;
  });
  // The teardown before the relay's: the app closes with its database reachable again.
  t.teardown(() => link?.restore());
  const client = new pg.Client({ connectionString: direct });
  await client.connect();
  t.teardown(() => client.end());
  await bulk(client, 5000, 8000);
  const address = await server.listen({ port: 0, host: '127.0.0.1' });
  const headers = await bearer(PLATFORM_ADMIN);

  const outcome = await new Promise<{ ended: boolean; complete: boolean; lines: number }>((resolve) => {
    get(`${address}/api/v1/platform/audit?format=ndjson&action=bulk.row`, headers, (res) => {
      let lines = 0;
      let ended = false;
      res.setEncoding('utf8');
      res.once('data', () => {
        res.pause();
        link!.cut();
        res.resume();
      });
      res.on('data', (chunk: string) => {
        lines += chunk.split('\n').length - 1;
      });
      res.on('end', () => {
        ended = true;
      });
      res.on('error', () => undefined);
      res.on('close', () => resolve({ ended, complete: res.complete, lines }));
    });
  });
  t.ok(outcome.lines < 5000, `${outcome.lines} entries before the cut`);
  t.notOk(outcome.complete, 'the client sees the body incomplete');
  t.notOk(outcome.ended, 'and never a clean end');
  link!.restore();
  // The service itself is unharmed: it answers again once the database is back.
  const ready = await waitUntil(async () => (await server.inject({ url: '/readyz' })).statusCode === 200, {
    timeoutMs: 15_000,
    what: 'readiness after the database returns',
  });
  t.ok(ready);
});
