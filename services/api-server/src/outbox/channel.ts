/**
 * The outbox's NOTIFY channel as an SQL expression, evaluated by the writer (NOTIFY) and the relay
 * (LISTEN) alike: one channel per schema, since schemas do not share relays, cut to PostgreSQL's
 * 63-byte identifier limit.
 */
export const OUTBOX_CHANNEL_SQL = "left('featureflags_outbox_' || current_schema(), 63)";
