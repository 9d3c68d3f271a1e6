import type { Queryable } from '../db/tx.js';

export interface AuditRecord {
  action: string;
  actor: string;
  /** What was acted on: `platform:<id>`, `tenant:<org>`, `cluster:<id>`. */
  resource: string;
  details: Record<string, unknown>;
  requestId: string | undefined;
}

export interface AuditRow extends AuditRecord {
  id: string;
  createdAt: string;
}

export async function insertAudit(db: Queryable, record: AuditRecord): Promise<void> {
  await db.query('INSERT INTO audit_events (action, actor, resource, details, request_id) VALUES ($1, $2, $3, $4, $5)', [
    record.action,
    record.actor,
    record.resource,
    JSON.stringify(record.details),
    record.requestId ?? null,
  ]);
}

/** Newest first; `beforeId` continues after the last row of the previous page. */
export async function listAudit(db: Queryable, limit: number, beforeId: bigint | undefined): Promise<AuditRow[]> {
  const { rows } = await db.query<{ id: string; action: string; actor: string; resource: string; details: Record<string, unknown>; request_id: string | null; created_at: Date }>(
    `SELECT id, action, actor, resource, details, request_id, created_at FROM audit_events
      WHERE ($1::bigint IS NULL OR id < $1::bigint) ORDER BY id DESC LIMIT $2`,
    [beforeId?.toString() ?? null, limit],
  );
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
