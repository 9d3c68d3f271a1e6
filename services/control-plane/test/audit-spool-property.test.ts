import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { Spool } from '../src/audit-spool/index.js';
import type { SpoolOptions } from '../src/audit-spool/index.js';

const readers = ['webhook', 'otlp'] as const;
const reader = fc.constantFrom(...readers);
type Step =
  | { op: 'append'; count: number; size: number }
  | { op: 'read'; reader: string; max: number }
  | { op: 'ack'; reader: string; pick: number }
  | { op: 'reopen' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('append' as const), count: fc.integer({ min: 1, max: 12 }), size: fc.nat(120) }),
  fc.record({ op: fc.constant('read' as const), reader, max: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ op: fc.constant('ack' as const), reader, pick: fc.nat() }),
  fc.constant({ op: 'reopen' as const }),
);

t.test('any interleaving of appends, reads, acks and reopens keeps order and loses nothing', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(step, { maxLength: 40 }),
      fc.constantFrom('block' as const, 'drop' as const),
      async (steps, full) => {
        const dir = await mkdtemp(join(tmpdir(), 'audit-spool-prop-'));
        const options: SpoolOptions = { dir, maxBytes: 3000, segmentBytes: 300, full, readers };
        let spool = await Spool.open(options);
        // The model: every id appended ok, and how many of them each reader has acknowledged.
        const ids: string[] = [];
        const acked = new Map<string, number>(readers.map((r) => [r, 0]));
        let refused = 0;
        try {
          for (const s of steps) {
            if (s.op === 'append') {
              for (let i = 0; i < s.count; i++) {
                const wasFull = spool.isFull;
                const result = spool.append({ n: ids.length, pad: 'p'.repeat(s.size) });
                // Only `drop` refuses: under `block` the caller stops new work, the spool keeps what comes.
                if (result.ok !== (full === 'block' || !wasFull))
                  throw new Error(`append ok=${result.ok} while isFull=${wasFull} (${full})`);
                if (result.ok) ids.push(result.id);
                else refused++;
              }
              if (full === 'drop' && spool.bytes > options.maxBytes + 200)
                throw new Error(`bytes ${spool.bytes} past the bound`);
            } else if (s.op === 'read') {
              const from = acked.get(s.reader) as number;
              const got = (await spool.read(s.reader, s.max)).map((r) => r.id);
              if (JSON.stringify(got) !== JSON.stringify(ids.slice(from, from + s.max))) return false;
            } else if (s.op === 'ack') {
              const from = acked.get(s.reader) as number;
              if (ids.length === 0) continue;
              // Any appended id: one already acknowledged (a no-op) or one ahead, read or not.
              const index = s.pick % ids.length;
              await spool.ack(s.reader, ids[index] as string);
              acked.set(s.reader, Math.max(from, index + 1));
            } else {
              await spool.close();
              spool = await Spool.open(options);
              refused = 0; // counted since open
            }
            for (const r of readers) {
              if (spool.backlog(r).records !== ids.length - (acked.get(r) as number)) return false;
            }
          }
          if (spool.dropped !== (full === 'drop' ? refused : 0)) return false;
          // Whatever happened, each reader still gets the rest, in order.
          for (const r of readers) {
            const rest = (await spool.read(r, 1000)).map((x) => x.id);
            if (JSON.stringify(rest) !== JSON.stringify(ids.slice(acked.get(r)))) return false;
          }
          return true;
        } finally {
          await spool.close();
          await rm(dir, { recursive: true, force: true });
        }
      },
    ),
    { numRuns: 150 },
  );
  t.pass('150 runs of up to 40 steps');
});
