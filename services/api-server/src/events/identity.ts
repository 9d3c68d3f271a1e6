import { isPlatformAdmin, PLATFORM_ADMIN_ACTOR, TENANT_ROLES } from '@gsp/platform-contract';
import type { Queryable, RoleBinding, TenantRole } from '@gsp/platform-contract';

/** What a caller may see: `GET /api/v1/me`, and the filter of its event stream. */
export interface Identity {
  subject: string;
  platformAdmin: boolean;
  /** Tenant roles by org. */
  tenants: ReadonlyMap<string, TenantRole>;
}

const TENANT_PREFIX = 'tenant:';

/** Every binding of `subject` (one indexed query: the primary key starts with the subject). */
async function allBindings(db: Queryable, subjects: readonly string[]): Promise<(RoleBinding & { subject: string })[]> {
  const { rows } = await db.query<RoleBinding & { subject: string }>(
    'SELECT subject, role, resource FROM role_bindings WHERE subject = ANY($1)',
    [subjects],
  );
  return rows;
}

function identityOf(subject: string, bindings: readonly RoleBinding[], platformId: string): Identity {
  const tenants = new Map<string, TenantRole>();
  for (const b of bindings) {
    const role = TENANT_ROLES.find((r) => r === b.role);
    if (b.resource.startsWith(TENANT_PREFIX) && role !== undefined)
      tenants.set(b.resource.slice(TENANT_PREFIX.length), role);
  }
  return { subject, platformAdmin: isPlatformAdmin(bindings, platformId), tenants };
}

export async function readIdentity(db: Queryable, subject: string, platformId: string): Promise<Identity> {
  return identityOf(subject, await allBindings(db, [subject]), platformId);
}

/** `actorRole` of an actor as events carry it: `platform-admin`, its role in `org`, or null. */
export type ActorRoleOf = (actor: string, org: string | undefined) => string | null;

/**
 * The current roles of the actors of events that did not record one (member and cluster events):
 * a tenant must not be shown a platform admin's subject, whatever the event.
 */
export async function readActorRoles(
  db: Queryable,
  platformId: string,
  actors: readonly string[],
): Promise<ActorRoleOf> {
  const byActor = new Map<string, RoleBinding[]>();
  for (const row of actors.length === 0 ? [] : await allBindings(db, [...new Set(actors)])) {
    const list = byActor.get(row.subject) ?? [];
    list.push(row);
    byActor.set(row.subject, list);
  }
  return (actor, org) => {
    const identity = identityOf(actor, byActor.get(actor) ?? [], platformId);
    if (identity.platformAdmin) return PLATFORM_ADMIN_ACTOR;
    return (org === undefined ? undefined : identity.tenants.get(org)) ?? null;
  };
}
