import t from 'tap';
import { FLAG_UPDATED_EVENT } from '@gsp/platform-contract';
import { readReplay } from '../src/events/replay.js';
import type { Replay } from '../src/events/replay.js';
import { build } from './helper.js';

const { app } = await build(t, { OUTBOX_RELAY_ENABLED: 'false' });
const db = app.pg;

/** Outbox rows as the relay leaves them: `published` is the second at which each was delivered (null: not yet). */
async function outbox(rows: { id: number; published: number | null }[]): Promise<void> {
  await db.query('DELETE FROM outbox_events');
  for (const { id, published } of rows)
    await db.query(
      `INSERT INTO outbox_events (id, event_type, scope_key, payload, delivered_at)
       VALUES ($1, $2, 'platform', $3, CASE WHEN $4::int IS NULL THEN NULL ` +
        "ELSE timestamptz '2030-01-01' + make_interval(secs => $4::int) END)",
      [id, FLAG_UPDATED_EVENT, { flag: 'f', actor: 'a', scope: { type: 'platform' }, value: true }, published],
    );
}

const ids = (replay: Replay) => (replay.kind === 'events' ? replay.events.map((e) => Number(e.id)) : replay);

t.test('a client is sent the events after the one it saw, in id order, published or not yet', async (t) => {
  await outbox([
    { id: 1, published: 1 },
    { id: 2, published: 1 },
    { id: 3, published: 2 },
    { id: 4, published: null },
  ]);
  t.same(ids(await readReplay(db, 2n, 100)), [3, 4]);
  t.same(ids(await readReplay(db, 4n, 100)), [], 'nothing after the newest');
  t.same(ids(await readReplay(db, 0n, 100)), [1, 2, 3, 4], 'everything after 0');
  const replay = await readReplay(db, 2n, 100);
  t.same(
    replay.kind === 'events' && [...replay.unpublished],
    ['4'],
    'the unpublished one is marked, so its live copy is dropped',
  );
});

t.test('an event with a lower id published after the one the client saw is sent too', async (t) => {
  // 5 committed after 6, so the relay published 6 first: a client that saw 6 has not seen 5.
  await outbox([
    { id: 4, published: 1 },
    { id: 6, published: 2 },
    { id: 5, published: 3 },
    { id: 3, published: null },
    { id: 7, published: null },
  ]);
  t.same(ids(await readReplay(db, 6n, 100)), [3, 5, 7]);
  t.same(ids(await readReplay(db, 6n, 2)), [5, 7], 'looking back as many ids as the limit');
});

t.test('more events than the limit since the id is a reload that resumes at the newest', async (t) => {
  await outbox(Array.from({ length: 12 }, (_, i) => ({ id: i + 1, published: 1 })));
  t.same(await readReplay(db, 1n, 10), { kind: 'reload', reason: 'replay-limit', id: '12' });
  t.same(ids(await readReplay(db, 2n, 10)), [3, 4, 5, 6, 7, 8, 9, 10, 11, 12], 'exactly the limit is replayed');
});

t.test('an id before the oldest event kept, or after the newest, is a gap', async (t) => {
  await outbox([
    { id: 50, published: 1 },
    { id: 51, published: 1 },
  ]);
  t.same(await readReplay(db, 10n, 100), { kind: 'reload', reason: 'gap', id: '51' }, 'events 11 to 49 are gone');
  t.same(ids(await readReplay(db, 49n, 100)), [50, 51], 'the one just before the oldest is not a gap');
  t.same(await readReplay(db, 52n, 100), { kind: 'reload', reason: 'gap', id: '51' }, 'not an id of this outbox');
  await outbox([]);
  t.same(ids(await readReplay(db, 0n, 100)), [], 'an empty outbox after 0: nothing');
  t.same(await readReplay(db, 3n, 100), { kind: 'reload', reason: 'gap', id: undefined });
});
