import type { Queryable } from '@gsp/platform-contract';
import { toFeedEvent } from './feed-event.js';
import type { FeedEvent } from './feed-event.js';

/** What a stream resumed after an id starts with: the events since, or a reload and where to resume next. */
export type Replay =
  | {
      kind: 'events';
      /** The id the client resumed after. */
      afterId: bigint;
      events: FeedEvent[];
      /** Ids of replayed rows the relay has not published yet: their live copy is dropped when it comes. */
      unpublished: Set<string>;
    }
  | {
      kind: 'reload';
      /** `gap`: events after the id are no longer kept (or the id is not ours); `replay-limit`: too many. */
      reason: 'gap' | 'replay-limit';
      /** The newest outbox id: the client resumes from here once it has reloaded. */
      id: string | undefined;
    };

/**
 * The outbox rows a client that saw `afterId` has not seen, in id order, at most `limit`.
 *
 * Rows still undelivered are read too: the relay publishes a batch before it marks it delivered,
 * so a row published just before this stream subscribed may not be marked yet. The stream drops
 * the live copy of a replayed row by its id, and live events at or below `afterId` that are not
 * replayed (the client saw them before it left).
 *
 * Ids are taken at insert and committed in any order, so a row below `afterId` can be published
 * after it: such rows (published later than `afterId`, or not yet) are replayed as well, looking
 * back at most `limit` ids.
 */
export async function readReplay(db: Queryable, afterId: bigint, limit: number): Promise<Replay> {
  const { rows: bounds } = await db.query<{ oldest: string | null; newest: string | null }>(
    `SELECT (SELECT id FROM outbox_events ORDER BY id LIMIT 1)::text AS oldest,
            (SELECT id FROM outbox_events ORDER BY id DESC LIMIT 1)::text AS newest`,
  );
  const oldest = bounds[0]?.oldest ?? null;
  const newest = bounds[0]?.newest ?? null;
  // Rows up to the oldest kept one were pruned; an id beyond the newest is from another database.
  const kept =
    oldest === null || newest === null ? afterId === 0n : afterId >= BigInt(oldest) - 1n && afterId <= BigInt(newest);
  if (!kept) return { kind: 'reload', reason: 'gap', id: newest ?? undefined };

  const { rows } = await db.query<{ id: string; event_type: string; payload: object; published: boolean }>(
    `SELECT id::text AS id, event_type, payload, delivered_at IS NOT NULL AS published FROM outbox_events
      WHERE id > $1::bigint
         OR (id < $1::bigint AND id > $1::bigint - $2::int
             AND (delivered_at IS NULL OR delivered_at > ` +
      `(SELECT delivered_at FROM outbox_events WHERE id = $1::bigint)))
      ORDER BY outbox_events.id LIMIT $2::int + 1`,
    [afterId.toString(), limit],
  );
  if (rows.length > limit) return { kind: 'reload', reason: 'replay-limit', id: newest ?? undefined };
  const events: FeedEvent[] = [];
  const unpublished = new Set<string>();
  for (const row of rows) {
    const event = toFeedEvent(row.event_type, { ...row.payload, id: row.id });
    if (event) events.push(event);
    if (event && !row.published) unpublished.add(row.id);
  }
  return { kind: 'events', afterId, events, unpublished };
}
