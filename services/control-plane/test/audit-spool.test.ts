import { appendFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { Spool } from '../src/audit-spool/index.js';
import type { SpoolOptions } from '../src/audit-spool/index.js';

async function spoolDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'audit-spool-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function openSpool(t: Test, options: Partial<SpoolOptions> & { dir: string }): Promise<Spool> {
  const spool = await Spool.open({ maxBytes: 1024 * 1024, full: 'block', readers: ['webhook', 'otlp'], ...options });
  t.teardown(() => spool.close());
  return spool;
}

function appendMany(spool: Spool, count: number, from = 0): string[] {
  const ids: string[] = [];
  for (let i = from; i < from + count; i++) {
    const result = spool.append({ n: i, action: 'gameservers.delete' });
    if (!result.ok) throw new Error(`append ${i} refused`);
    ids.push(result.id);
  }
  return ids;
}

async function drain(spool: Spool, reader: string, ack = true): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const batch = await spool.read(reader, 7);
    if (batch.length === 0) return ids;
    ids.push(...batch.map((r) => r.id));
    if (ack) await spool.ack(reader, (batch[batch.length - 1] as { id: string }).id);
    else return ids;
  }
}

t.test('records come back in order with their ids, times and content, for each reader on its own', async (t) => {
  const spool = await openSpool(t, { dir: await spoolDir(t), segmentBytes: 300 });
  const before = Date.now();
  const ids = appendMany(spool, 50);
  t.equal(new Set(ids).size, 50, 'ids are unique');
  const batch = await spool.read('webhook', 3);
  t.same(
    batch.map((r) => r.record),
    [0, 1, 2].map((n) => ({ n, action: 'gameservers.delete' })),
  );
  t.ok(batch.every((r) => r.appendedAt >= before && r.appendedAt <= Date.now()));
  t.same(await drain(spool, 'webhook'), ids, 'the webhook reader gets every record once, in order');
  t.same(spool.backlog('webhook'), { records: 0, oldestMs: undefined });
  t.equal(spool.backlog('otlp').records, 50, 'the other reader has not moved');
  t.same(await drain(spool, 'otlp'), ids);
});

t.test('a read without an ack returns the same records again', async (t) => {
  const spool = await openSpool(t, { dir: await spoolDir(t) });
  const ids = appendMany(spool, 5);
  const first = await spool.read('webhook', 3);
  const again = await spool.read('webhook', 10);
  t.same(
    first.map((r) => r.id),
    ids.slice(0, 3),
  );
  t.same(
    again.map((r) => r.id),
    ids,
  );
  await spool.ack('webhook', ids[1] as string);
  t.same(
    (await spool.read('webhook', 10)).map((r) => r.id),
    ids.slice(2),
  );
});

t.test('acknowledging an id that was never read moves the reader past it', async (t) => {
  const spool = await openSpool(t, { dir: await spoolDir(t), segmentBytes: 200 });
  const ids = appendMany(spool, 30);
  await spool.ack('webhook', ids[19] as string);
  t.same(
    (await spool.read('webhook', 100)).map((r) => r.id),
    ids.slice(20),
  );
  t.equal(spool.backlog('webhook').records, 10);
});

t.test('a waiting read resolves when a record is appended, and an aborted one rejects', async (t) => {
  const spool = await openSpool(t, { dir: await spoolDir(t) });
  const waiting = spool.read('webhook', 10, { wait: true });
  const { id } = spool.append({ kind: 'late' }) as { id: string };
  t.same(
    (await waiting).map((r) => r.id),
    [id],
  );
  await spool.ack('webhook', id);
  const controller = new AbortController();
  const aborted = spool.read('webhook', 10, { wait: true, signal: controller.signal });
  controller.abort(new Error('sink stopped'));
  await t.rejects(aborted, { message: 'sink stopped' });
  t.same(await spool.read('webhook', 10, { wait: false }), []);
});

t.test('after a reopen each reader resumes after its last ack, and ids keep growing without reuse', async (t) => {
  const dir = await spoolDir(t);
  const first = await Spool.open({
    dir,
    maxBytes: 1 << 20,
    full: 'block',
    readers: ['webhook', 'otlp'],
    segmentBytes: 256,
  });
  const ids = appendMany(first, 40);
  await first.ack('webhook', ids[24] as string);
  await first.ack('otlp', ids[4] as string);
  await first.close();
  const second = await openSpool(t, { dir, segmentBytes: 256 });
  t.same(second.backlog('webhook').records, 15);
  t.ok((second.backlog('otlp').oldestMs ?? -1) >= 0, 'the age of the oldest is known again');
  t.same(await drain(second, 'webhook', false), ids.slice(25, 32), 'webhook resumes at 26');
  const more = appendMany(second, 3, 40);
  t.notOk(
    more.some((id) => ids.includes(id)),
    'no id is reused',
  );
  t.same(await drain(second, 'otlp'), [...ids.slice(5), ...more]);
  t.same(await drain(second, 'webhook'), [...ids.slice(25), ...more]);
});

t.test('a torn last line left by a crash is cut off and never read', async (t) => {
  const dir = await spoolDir(t);
  const first = await Spool.open({ dir, maxBytes: 1 << 20, full: 'block', readers: ['webhook'] });
  const ids = appendMany(first, 3);
  await first.close();
  const segment = (await readdir(dir))
    .filter((name) => name.endsWith('.seg'))
    .sort()
    .pop() as string;
  await appendFile(join(dir, segment), '{"s":4,"t":1,"r":{"n":');
  const second = await openSpool(t, { dir, readers: ['webhook'] });
  t.equal((await readFile(join(dir, segment), 'utf8')).split('\n').length, 4, 'three lines and the final newline');
  t.same(await drain(second, 'webhook'), ids);
  const next = appendMany(second, 1);
  t.same(await drain(second, 'webhook'), next, 'the record after the torn one is read whole');
});

t.test('a segment is deleted once every reader has acknowledged it, and not before', async (t) => {
  const dir = await spoolDir(t);
  const spool = await openSpool(t, { dir, segmentBytes: 200 });
  const ids = appendMany(spool, 40);
  await new Promise<void>((resolve) => spool.whenWritten(() => resolve()));
  const segments = async () => (await readdir(dir)).filter((name) => name.endsWith('.seg')).length;
  const all = await segments();
  t.ok(all > 5, `${all} segments`);
  const bytes = spool.bytes;
  await drain(spool, 'webhook');
  t.equal(await segments(), all, 'the otlp reader still needs them');
  t.equal(spool.bytes, bytes);
  await spool.ack('otlp', ids[39] as string);
  t.equal(await segments(), 1, 'only the segment being written is left');
  t.ok(spool.bytes < bytes / 5);
});

t.test('with block, a full spool keeps the records of work already let in, and drops none', async (t) => {
  const spool = await openSpool(t, { dir: await spoolDir(t), maxBytes: 4000 });
  const ids: string[] = [];
  for (let i = 0; i < 200; i++) {
    const result = spool.append({ n: i, padding: 'x'.repeat(40) });
    if (result.ok) ids.push(result.id);
  }
  t.equal(ids.length, 200, 'every record is kept: block refuses requests (isFull), not their records');
  t.ok(spool.isFull, `full at ${spool.bytes} bytes, so the request path answers 503`);
  t.equal(spool.dropped, 0, 'nothing dropped');
  t.equal((await drain(spool, 'webhook')).length, 200, 'the reader gets every record');
  t.ok(spool.isFull, 'one slow reader keeps it full');
  await drain(spool, 'otlp');
  t.notOk(spool.isFull, 'room again once the slowest reader is through');
  t.ok(spool.append({ n: 'after' }).ok);
});

t.test('with drop, refused records are counted', async (t) => {
  const spool = await openSpool(t, { dir: await spoolDir(t), maxBytes: 3000, full: 'drop' });
  let accepted = 0;
  for (let i = 0; i < 100; i++) if (spool.append({ n: i, padding: 'x'.repeat(40) }).ok) accepted++;
  t.equal(spool.dropped, 100 - accepted);
  t.equal((await drain(spool, 'webhook')).length, accepted);
});

t.test('the age of the oldest undelivered record is reported per reader', async (t) => {
  const spool = await openSpool(t, { dir: await spoolDir(t) });
  t.equal(spool.backlog('webhook').oldestMs, undefined);
  const ids = appendMany(spool, 3);
  const { oldestMs } = spool.backlog('webhook');
  t.ok(oldestMs !== undefined && oldestMs >= 0 && oldestMs < 1000, `oldest ${oldestMs} ms`);
  await spool.ack('webhook', ids[0] as string);
  t.equal(spool.backlog('webhook').records, 2);
  t.ok(spool.backlog('webhook').oldestMs !== undefined);
});

t.test('a poison batch is written out with its reason and acknowledged', async (t) => {
  const dir = await spoolDir(t);
  const spool = await openSpool(t, { dir });
  appendMany(spool, 2);
  const ids = appendMany(spool, 3, 2);
  await spool.ack('webhook', (await spool.read('webhook', 2)).at(-1)?.id as string);
  const batch = await spool.read('webhook', 3);
  await spool.quarantine('webhook', batch, '400 from the receiver: unknown field');
  t.same(await spool.read('webhook', 10), []);
  const file = join(dir, 'poison', `webhook-${ids[0]}.ndjson`);
  const lines = (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
  t.match(lines[0], { reader: 'webhook', reason: '400 from the receiver: unknown field', records: 3 });
  t.same(
    lines.slice(1),
    batch.map((r) => ({ id: r.id, record: r.record })),
  );
  t.equal(spool.backlog('otlp').records, 5, 'the other reader still gets them');
});

t.test('bad options and unknown readers are refused with a message naming them', async (t) => {
  const dir = await spoolDir(t);
  await t.rejects(Spool.open({ dir, maxBytes: 0, full: 'block', readers: ['webhook'] }), /maxBytes/);
  await t.rejects(Spool.open({ dir, maxBytes: 10, full: 'block', readers: ['../x'] }), /reader name/);
  const spool = await openSpool(t, { dir });
  t.throws(() => spool.backlog('constructor'), /no reader named "constructor"/);
  await t.rejects(spool.ack('webhook', 'nonsense'), /not a spool id/);
});

t.test('closing the spool ends a waiting read with no records', async (t) => {
  const spool = await Spool.open({ dir: await spoolDir(t), maxBytes: 1 << 20, full: 'block', readers: ['webhook'] });
  const waiting = spool.read('webhook', 10, { wait: true });
  await spool.close();
  t.same(await waiting, []);
  t.throws(() => spool.append({ late: true }), { code: 'SPOOL_CLOSED' });
});
