import type { Queryable } from '../db/tx.js';
import { OUTBOX_CHANNEL_SQL } from './channel.js';

/**
 * Adds an event to the outbox inside the caller's transaction, so it is published if and only if
 * the change it announces commits. `scopeKey` groups events that must keep their order.
 * The NOTIFY is delivered at commit and wakes the relay within milliseconds.
 */
export async function enqueueEvent(tx: Queryable, type: string, scopeKey: string, payload: object): Promise<void> {
  await tx.query('INSERT INTO outbox_events (event_type, scope_key, payload) VALUES ($1, $2, $3)', [
    type,
    scopeKey,
    JSON.stringify(payload),
  ]);
  await tx.query(`SELECT pg_notify(${OUTBOX_CHANNEL_SQL}, '')`);
}
