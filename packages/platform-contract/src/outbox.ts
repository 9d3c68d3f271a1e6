import type { Queryable } from './clusters.js';

/**
 * The outbox's NOTIFY channel as an SQL expression, evaluated by the writer (NOTIFY) and the relay
 * (LISTEN) alike: one channel per schema, since schemas do not share relays, cut to PostgreSQL's
 * 63-byte identifier limit.
 */
export const OUTBOX_CHANNEL_SQL = "left('featureflags_outbox_' || current_schema(), 63)";

/**
 * Adds an event to the API server's outbox inside the caller's transaction, so it is published if
 * and only if the change it announces commits. `scopeKey` groups events that must keep their
 * order. The NOTIFY is delivered at commit and wakes the relay within milliseconds. The proxy
 * writes its agent-presence events this way too, so they reach every process through one relay.
 */
export async function enqueueEvent(tx: Queryable, type: string, scopeKey: string, payload: object): Promise<void> {
  await tx.query('INSERT INTO outbox_events (event_type, scope_key, payload) VALUES ($1, $2, $3)', [
    type,
    scopeKey,
    JSON.stringify(payload),
  ]);
  await tx.query(`SELECT pg_notify(${OUTBOX_CHANNEL_SQL}, '')`);
}
