import type { Queryable } from '../db/tx.js';
import type { Instant } from './instant.js';

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

/**
 * Which entries a read keeps: those matching every field it sets; all of them when none is.
 * `org` is the tenant whose rows they are; `cluster` keeps a cluster's rows (`cluster:<id>`) and the
 * flag rows whose details name it; `since` is inclusive, `until` exclusive.
 */
export interface AuditLogFilter {
  org?: string | undefined;
  action?: string | undefined;
  actor?: string | undefined;
  cluster?: string | undefined;
  since?: Instant | undefined;
  until?: Instant | undefined;
}

/** The conditions of `filter`, numbering parameters after those already in `params` (which it extends). */
function conditions(filter: AuditLogFilter, params: unknown[]): string[] {
  const where: string[] = [];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  // Only the set fields become conditions (never "$n IS NULL OR org = $n"), so a tenant's read uses
  // audit_events_by_org.
  if (filter.org !== undefined) where.push(`org = ${param(filter.org)}`);
  if (filter.action !== undefined) where.push(`action = ${param(filter.action)}`);
  if (filter.actor !== undefined) where.push(`actor = ${param(filter.actor)}`);
  if (filter.cluster !== undefined) {
    const resource = param(`cluster:${filter.cluster}`);
    where.push(`(resource = ${resource} OR details->'scope'->>'clusterId' = ${param(filter.cluster)})`);
  }
  // Seconds and microseconds apart: PostgreSQL takes every instant RFC 3339 can write this way, exactly.
  const at = (i: Instant) =>
    `to_timestamp(${param(i.seconds.toString())}::bigint) + ${param(i.micros)}::int * interval '1 microsecond'`;
  if (filter.since !== undefined) where.push(`created_at >= ${at(filter.since)}`);
  if (filter.until !== undefined) where.push(`created_at < ${at(filter.until)}`);
  return where;
}

interface AuditLogRow {
  id: string;
  action: string;
  actor: string;
  resource: string;
  details: Record<string, unknown>;
  request_id: string | null;
  created_at: Date;
}

const itemOf = (r: AuditLogRow): AuditLogItem => ({
  id: r.id,
  action: r.action,
  actor: r.actor,
  resource: r.resource,
  details: r.details,
  requestId: r.request_id ?? undefined,
  createdAt: r.created_at.toISOString(),
});

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
  const where = ['($1::bigint IS NULL OR id < $1::bigint)', ...conditions(filter, params)];
  const sql = `${SELECT} WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $2`;
  const { rows } = await db.query<AuditLogRow>(sql, params);
  return rows.map(itemOf);
}

/** The id of the newest entry committed now; 0 when there is none. */
export async function lastAuditLogId(db: Queryable): Promise<bigint> {
  const { rows } = await db.query<{ id: string | null }>('SELECT max(id)::text AS id FROM audit_events');
  return BigInt(rows[0]?.id ?? 0);
}

/** Oldest first: up to `limit` entries with ids in (`afterId`, `throughId`] that match `filter`. */
export async function readAuditLogAfter(
  db: Queryable,
  limit: number,
  afterId: bigint,
  throughId: bigint,
  filter: AuditLogFilter = {},
): Promise<AuditLogItem[]> {
  const params: unknown[] = [afterId.toString(), throughId.toString(), limit];
  const where = ['id > $1::bigint', 'id <= $2::bigint', ...conditions(filter, params)];
  const sql = `${SELECT} WHERE ${where.join(' AND ')} ORDER BY id ASC LIMIT $3`;
  const { rows } = await db.query<AuditLogRow>(sql, params);
  return rows.map(itemOf);
}
