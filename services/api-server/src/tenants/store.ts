import type pg from 'pg';
import { ACCESS_CHANGED_EVENT, PLATFORM_ADMIN_ROLE, platformResource, tenantResource } from '@gsp/platform-contract';
import type { AccessEvent, TenantRole } from '@gsp/platform-contract';
import type { Queryable } from '../db/tx.js';
import { withTransaction } from '../db/tx.js';
import { appendAuditLog } from '../audit-log/store.js';
import { enqueueEvent } from '@gsp/platform-contract';

export interface Member {
  subject: string;
  role: TenantRole;
}

/** A member as the list answers it: with what they are called, where the platform knows it. */
export interface ListedMember extends Member {
  name?: string;
}

/** A tenant as the platform admins' list answers it. */
export interface TenantSummary {
  org: string;
  createdAt: string;
  clusters: number;
  members: number;
}

/** Gives `subject` the `role` on `resource`, replacing any role it had there. */
async function bindRole(db: Queryable, subject: string, resource: string, role: string): Promise<void> {
  await db.query(
    'INSERT INTO role_bindings (subject, resource, role) VALUES ($1, $2, $3) ' +
      'ON CONFLICT (subject, resource) DO UPDATE SET role = EXCLUDED.role',
    [subject, resource, role],
  );
}

export async function tenantExists(db: Queryable, org: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM tenants WHERE org = $1', [org]);
  return rowCount !== 0;
}

/** (Re)grants the platform admin role to `subjects`: the admins named in configuration, at every start. */
export async function grantPlatformAdmins(
  db: Queryable,
  platformId: string,
  subjects: readonly string[],
): Promise<void> {
  for (const subject of subjects) await bindRole(db, subject, platformResource(platformId), PLATFORM_ADMIN_ROLE);
}

/** The tenant's members by subject, each with the name their last console sign-in gave, if any. */
export async function listMembers(db: Queryable, org: string): Promise<ListedMember[]> {
  const { rows } = await db.query<Member & { name: string | null }>(
    `SELECT b.subject, b.role, n.name FROM role_bindings b LEFT JOIN subject_names n ON n.subject = b.subject
     WHERE b.resource = $1 ORDER BY b.subject`,
    [tenantResource(org)],
  );
  return rows.map(({ name, ...member }) => (name === null ? member : { ...member, name }));
}

/** Every tenant, by org, with how many clusters and members it has (for platform admins). */
export async function listTenants(db: Queryable): Promise<TenantSummary[]> {
  const { rows } = await db.query<{ org: string; created_at: Date; clusters: number; members: number }>(
    `SELECT t.org, t.created_at,
       (SELECT count(*)::int FROM clusters c WHERE c.org = t.org) AS clusters,
       (SELECT count(*)::int FROM role_bindings b WHERE b.resource = $1 || t.org) AS members
     FROM tenants t ORDER BY t.org`,
    // A tenant's resource is tenantResource(org): its prefix, then the org.
    [tenantResource('')],
  );
  return rows.map((r) => ({
    org: r.org,
    createdAt: r.created_at.toISOString(),
    clusters: r.clusters,
    members: r.members,
  }));
}

/**
 * Records a membership change in the audit log and announces it: the proxy drops what it cached
 * and re-checks the subject's live streams. `role` is the member's role now, null once removed.
 */
async function recordMemberChange(
  tx: Queryable,
  change: { org: string; subject: string; role: TenantRole | null; actor: string; requestId: string },
): Promise<void> {
  const { org, subject, role, actor, requestId } = change;
  await appendAuditLog(tx, {
    action: role === null ? 'tenants.members.removed' : 'tenants.members.set',
    actor,
    resource: tenantResource(org),
    org,
    details: role === null ? { subject } : { subject, role },
    requestId,
  });
  const event: AccessEvent = { kind: 'member', org, subject, role, actor };
  await enqueueEvent(tx, ACCESS_CHANGED_EVENT, tenantResource(org), event);
}

/** The change would leave the tenant without an admin, and nobody could manage its members again. */
export class LastAdminError extends Error {
  constructor(org: string, subject: string) {
    super(
      `${subject} is the last admin of tenant ${org}, ` +
        'and a tenant must keep one admin: make another member admin first',
    );
    this.name = 'LastAdminError';
  }
}

/**
 * Refuses taking `subject`'s admin role away when no other admin would remain. The tenant row is
 * locked until commit, so two admins demoting each other at once cannot both succeed.
 */
async function keepAnAdmin(tx: Queryable, org: string, subject: string): Promise<void> {
  await tx.query('SELECT 1 FROM tenants WHERE org = $1 FOR UPDATE', [org]);
  const admins = "SELECT subject FROM role_bindings WHERE resource = $1 AND role = 'admin'";
  const { rows } = await tx.query<{ subject: string }>(admins, [tenantResource(org)]);
  if (rows.some((r) => r.subject === subject) && rows.length === 1) throw new LastAdminError(org, subject);
}

/** Sets a member's role, creating the tenant on its first member. */
export async function putMember(
  pool: pg.Pool,
  org: string,
  member: Member,
  actor: string,
  requestId: string,
): Promise<void> {
  await withTransaction(pool, async (tx) => {
    await tx.query('INSERT INTO tenants (org) VALUES ($1) ON CONFLICT DO NOTHING', [org]);
    if (member.role !== 'admin') await keepAnAdmin(tx, org, member.subject);
    await bindRole(tx, member.subject, tenantResource(org), member.role);
    await recordMemberChange(tx, { org, ...member, actor, requestId });
  });
}

export async function deleteMember(
  pool: pg.Pool,
  org: string,
  subject: string,
  actor: string,
  requestId: string,
): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    await keepAnAdmin(tx, org, subject);
    const { rowCount } = await tx.query('DELETE FROM role_bindings WHERE subject = $1 AND resource = $2', [
      subject,
      tenantResource(org),
    ]);
    if (rowCount === 0) return false;
    await recordMemberChange(tx, { org, subject, role: null, actor, requestId });
    return true;
  });
}
