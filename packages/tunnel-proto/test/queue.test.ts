import t from 'tap';
import fc from 'fast-check';
import { BatchQueue, frameDataBytes } from '@gsp/tunnel-proto';

/** Every batch the consumer is given, until the queue ends (rejects with its failure). */
function drain<T>(queue: BatchQueue<T>): Promise<T[][]> {
  return new Promise((resolve, reject) => {
    const batches: T[][] = [];
    queue.consume(() => {
      for (let batch = queue.takeBatch(); batch !== undefined; batch = queue.takeBatch()) batches.push(batch);
      if (!queue.closed) return;
      if (queue.failure === undefined) resolve(batches);
      else reject(queue.failure as Error);
    });
  });
}

/** The batches the consumer is given, one call of `ready` each. */
function calls<T>(queue: BatchQueue<T>): T[][][] {
  const seen: T[][][] = [];
  queue.consume(() => {
    const batches: T[][] = [];
    for (let batch = queue.takeBatch(); batch !== undefined; batch = queue.takeBatch()) batches.push(batch);
    seen.push(batches);
  });
  return seen;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

t.test('items pushed in the same turn reach the consumer together, in order, in the next turn', async (t) => {
  const queue = new BatchQueue<number>();
  const seen = calls(queue);
  queue.push(1);
  queue.push(2);
  queue.push(3);
  t.same(seen, [], 'not within the turn of the pushes');
  await nextTurn();
  t.same(seen, [[[1, 2, 3]]]);
  queue.push(4);
  await nextTurn();
  t.same(seen, [[[1, 2, 3]], [[4]]], 'one call per turn with items');
  await nextTurn();
  t.equal(seen.length, 2, 'no call while nothing waits');
});

t.test('a batch stops at the byte limit; an item larger than the limit still goes, alone', async (t) => {
  const queue = new BatchQueue<number>({ sizeOf: (n) => n, maxBatchBytes: 10 });
  for (const n of [4, 4, 4, 30, 1]) queue.push(n);
  queue.end();
  t.same(await drain(queue), [[4, 4], [4], [30], [1]]);
});

t.test('ending delivers what was queued first; failing rejects after it', async (t) => {
  const ended = new BatchQueue<string>();
  ended.push('a');
  ended.end();
  ended.push('ignored');
  t.same(await drain(ended), [['a']]);

  const failed = new BatchQueue<string>();
  failed.push('a');
  failed.end(new Error('tunnel closed'));
  t.same(failed.takeBatch(), ['a']);
  t.equal(failed.takeBatch(), undefined);
  t.ok(failed.closed);
  t.match(failed.failure, /tunnel closed/);
});

t.test('a consumer waiting on an empty queue is called when it ends', async (t) => {
  const queue = new BatchQueue<number>();
  const reading = drain(queue);
  queue.end();
  t.same(await reading, []);
});

t.test('whatever the pushes and limits, batches hold every item once, in order, within the limits', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(fc.integer({ min: 0, max: 100 }), { maxLength: 20 }), { maxLength: 10 }),
      fc.integer({ min: 1, max: 200 }),
      fc.integer({ min: 1, max: 8 }),
      async (ticks, maxBatchBytes, maxBatchItems) => {
        const queue = new BatchQueue<number>({ sizeOf: (n) => n, maxBatchBytes, maxBatchItems });
        const reading = drain(queue);
        for (const tick of ticks) {
          for (const n of tick) queue.push(n);
          await new Promise((r) => setImmediate(r));
        }
        queue.end();
        const batches = await reading;
        const flat = batches.flat();
        const pushed = ticks.flat();
        if (flat.length !== pushed.length || flat.some((n, i) => n !== pushed[i])) return false;
        return batches.every(
          (b) =>
            b.length > 0 &&
            b.length <= maxBatchItems &&
            (b.length === 1 || b.reduce((a, n) => a + n, 0) <= maxBatchBytes),
        );
      },
    ),
  );
});

t.test('only payload bytes count against the byte limit', async (t) => {
  t.equal(frameDataBytes({ kind: { case: 'data', value: new Uint8Array(7) } }), 7);
  t.equal(
    frameDataBytes({
      kind: { case: 'response', value: { status: 200, headers: 'a: b', body: new Uint8Array(5), end: true } },
    }),
    5,
    'a response carrying its body',
  );
  t.equal(frameDataBytes({ kind: { case: 'end', value: {} } }), 0);
  t.equal(frameDataBytes({}), 0);
});

t.test('taken tells whether an item is still queued and may be changed in place', async (t) => {
  const queue = new BatchQueue<{ n: number }>();
  const item = { n: 1 };
  queue.push(item);
  const pushedAt = queue.taken;
  const seen = calls(queue);
  t.equal(queue.taken, pushedAt, 'not taken before the consumer asks');
  item.n = 2; // still queued: the change travels with it
  await nextTurn();
  t.same(seen, [[[{ n: 2 }]]]);
  t.not(queue.taken, pushedAt, 'taken once the batch left');
});

t.test('pending bytes, full and whenDrained tell a writer when to hold and when to go on', async (t) => {
  const queue = new BatchQueue<Uint8Array>({ sizeOf: (b) => b.byteLength, highWaterBytes: 100, maxBatchBytes: 60 });
  let drained = 0;
  queue.whenDrained(() => drained++);
  await Promise.resolve();
  t.equal(drained, 1, 'an empty queue is drained at once');
  for (let i = 0; i < 4; i++) queue.push(new Uint8Array(40));
  t.equal(queue.pendingBytes, 160);
  t.ok(queue.full, 'above the high-water mark');
  queue.whenDrained(() => drained++);
  queue.takeBatch(); // 40 (the next 40 would pass maxBatchBytes)
  t.equal(queue.pendingBytes, 120);
  await Promise.resolve();
  t.equal(drained, 1, 'not yet: above half the high-water mark');
  queue.takeBatch();
  t.equal(queue.pendingBytes, 80);
  t.notOk(queue.full);
  await Promise.resolve();
  t.equal(drained, 1, 'below the mark but above half of it');
  queue.takeBatch();
  await Promise.resolve();
  t.equal(drained, 2, 'at half the high-water mark the writer may go on');
  queue.whenDrained(() => drained++);
  queue.end();
  await Promise.resolve();
  t.equal(drained, 3, 'an already drained queue calls back at once');
});
