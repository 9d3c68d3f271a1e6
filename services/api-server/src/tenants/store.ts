import type pg from 'pg';
import type { Queryable } from '../db/tx.js';
import { withTransaction } from '../db/tx.js';
import { insertAudit } from '../audit/store.js';
import { tenantResource } from '../auth/permissions.js';
import type { TenantRole } from '../auth/permissions.js';

export interface Member {
  subject: string;
  role: TenantRole;
}

export async function listMembers(db: Queryable, org: string): Promise<Member[]> {
  const { rows } = await db.query<Member>('SELECT subject, role FROM role_bindings WHERE resource = $1 ORDER BY subject', [tenantResource(org)]);
  return rows;
}

/** Sets a member's role, creating the tenant on its first member. */
export async function putMember(pool: pg.Pool, org: string, member: Member, actor: string, requestId: string): Promise<void> {
  await withTransaction(pool, async (tx) => {
    await tx.query('INSERT INTO tenants (org) VALUES ($1) ON CONFLICT DO NOTHING', [org]);
    await tx.query(
      `INSERT INTO role_bindings (subject, resource, role) VALUES ($1, $2, $3)
       ON CONFLICT (subject, resource) DO UPDATE SET role = EXCLUDED.role`,
      [member.subject, tenantResource(org), member.role],
    );
    await insertAudit(tx, { action: 'tenants.members.set', actor, resource: tenantResource(org), details: { ...member }, requestId });
  });
}

export async function deleteMember(pool: pg.Pool, org: string, subject: string, actor: string, requestId: string): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    const { rowCount } = await tx.query('DELETE FROM role_bindings WHERE subject = $1 AND resource = $2', [subject, tenantResource(org)]);
    if (rowCount === 0) return false;
    await insertAudit(tx, { action: 'tenants.members.removed', actor, resource: tenantResource(org), details: { subject }, requestId });
    return true;
  });
}
