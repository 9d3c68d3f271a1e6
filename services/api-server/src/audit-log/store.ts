import type { Queryable } from '../db/tx.js';

/** One committed change, as the audit log records it (table `audit_events`). */
export interface AuditLogEntry {
  action: string;
  actor: string;
  /** What was acted on: `platform:<id>`, `tenant:<org>`, `cluster:<id>`. */
  resource: string;
  /** The tenant the entry belongs to (its members, its clusters and their flags): what its admins may read. */
  org?: string | undefined;
  details: Record<string, unknown>;
  requestId: string | undefined;
}

/** An entry as read back, with its place in the log. */
export interface AuditLogItem extends Omit<AuditLogEntry, 'org'> {
  id: string;
  createdAt: string;
}

/** Appends an entry inside the caller's transaction, so it is kept if and only if the change commits. */
export async function appendAuditLog(db: Queryable, entry: AuditLogEntry): Promise<void> {
  const sql =
    'INSERT INTO audit_events (action, actor, resource, org, details, request_id) VALUES ($1, $2, $3, $4, $5, $6)';
  await db.query(sql, [
    entry.action,
    entry.actor,
    entry.resource,
    entry.org ?? null,
    JSON.stringify(entry.details),
    entry.requestId ?? null,
  ]);
}

const SELECT = 'SELECT id, action, actor, resource, details, request_id, created_at FROM audit_events';

/** Which entries a read keeps: one tenant's (`org`), one action's, one actor's; all of them when unset. */
export interface AuditLogFilter {
  org?: string | undefined;
  action?: string | undefined;
  actor?: string | undefined;
}

/**
 * Newest first; `beforeId` continues after the last entry of the previous page (whatever the
 * filter, since ids only grow); `filter` keeps the entries matching every field it sets.
 */
export async function readAuditLog(
  db: Queryable,
  limit: number,
  beforeId: bigint | undefined,
  filter: AuditLogFilter = {},
): Promise<AuditLogItem[]> {
  const params: unknown[] = [beforeId?.toString() ?? null, limit];
  const where = ['($1::bigint IS NULL OR id < $1::bigint)'];
  // Only the set fields become conditions (never "$n IS NULL OR org = $n"), so a tenant's read uses audit_events_by_org.
  for (const [column, value] of [
    ['org', filter.org],
    ['action', filter.action],
    ['actor', filter.actor],
  ] as const) {
    if (value === undefined) continue;
    params.push(value);
    where.push(`${column} = $${params.length}`);
  }
  const sql = `${SELECT} WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $2`;
  const { rows } = await db.query<{
    id: string;
    action: string;
    actor: string;
    resource: string;
    details: Record<string, unknown>;
    request_id: string | null;
    created_at: Date;
  }>(sql, params);
  return rows.map((r) => ({
    id: r.id,
    action: r.action,
    actor: r.actor,
    resource: r.resource,
    details: r.details,
    requestId: r.request_id ?? undefined,
    createdAt: r.created_at.toISOString(),
  }));
}
