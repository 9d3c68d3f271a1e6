/** Permissions on the platform API; the proxy checks `KUBECTL_PERMISSION` on every kubectl request. */
export type PlatformPermission = 'platform.admin' | 'tenant.read' | 'clusters.register' | 'members.manage';

export type TenantRole = 'admin' | 'operator' | 'viewer';
export const TENANT_ROLES: readonly TenantRole[] = ['admin', 'operator', 'viewer'];
export const PLATFORM_ADMIN_ROLE = 'org_creator';

const TENANT_ROLE_PERMISSIONS: Readonly<Record<TenantRole, readonly PlatformPermission[]>> = {
  viewer: ['tenant.read'],
  operator: ['tenant.read', 'clusters.register'],
  admin: ['tenant.read', 'clusters.register', 'members.manage'],
};

/** The tenant roles that grant `permission`, highest first (platform admins hold every permission). */
export function rolesWith(permission: PlatformPermission): TenantRole[] {
  return TENANT_ROLES.filter((role) => TENANT_ROLE_PERMISSIONS[role].includes(permission));
}

export interface RoleBinding {
  role: string;
  resource: string;
}

export const platformResource = (platformId: string): string => `platform:${platformId}`;
export const tenantResource = (org: string): string => `tenant:${org}`;

export function isPlatformAdmin(bindings: readonly RoleBinding[], platformId: string): boolean {
  const resource = platformResource(platformId);
  return bindings.some((b) => b.resource === resource && b.role === PLATFORM_ADMIN_ROLE);
}

export function tenantRole(bindings: readonly RoleBinding[], org: string): TenantRole | undefined {
  const resource = tenantResource(org);
  const role = bindings.find((b) => b.resource === resource)?.role;
  return TENANT_ROLES.find((r) => r === role);
}

/** Platform admins have every permission; tenant roles grant only within their tenant. */
export function authorize(
  bindings: readonly RoleBinding[],
  platformId: string,
  permission: PlatformPermission,
  org?: string,
): boolean {
  if (isPlatformAdmin(bindings, platformId)) return true;
  if (permission === 'platform.admin' || org === undefined) return false;
  const role = tenantRole(bindings, org);
  return role !== undefined && TENANT_ROLE_PERMISSIONS[role].includes(permission);
}

/** Downloading a kubeconfig and using it: tenant admins and operators (and platform admins). */
export const KUBECTL_PERMISSION: PlatformPermission = 'clusters.register';
