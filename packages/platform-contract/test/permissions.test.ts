import t from 'tap';
import fc from 'fast-check';
import {
  KUBECTL_PERMISSION,
  PLATFORM_ADMIN_ROLE,
  TENANT_ROLES,
  authorize,
  isPlatformAdmin,
  platformResource,
  tenantResource,
  tenantRole,
} from '../src/index.js';
import type { PlatformPermission, RoleBinding, TenantRole } from '../src/index.js';

const PLATFORM = 'gsp';
const PERMISSIONS: readonly PlatformPermission[] = [
  'platform.admin',
  'tenant.read',
  'clusters.register',
  'members.manage',
];
/** Lowest first: each role is meant to hold every permission of the ones before it. */
const ASCENDING: readonly TenantRole[] = ['viewer', 'operator', 'admin'];

const org = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);
const permission = fc.constantFrom(...PERMISSIONS);
const tenantRoleArb = fc.constantFrom(...TENANT_ROLES);
/** Any binding at all: tenant or platform resources, known roles or not. */
const binding: fc.Arbitrary<RoleBinding> = fc.record({
  role: fc.oneof(tenantRoleArb, fc.constant(PLATFORM_ADMIN_ROLE), fc.string({ maxLength: 10 })),
  resource: fc.oneof(
    org.map(tenantResource),
    fc.constantFrom(PLATFORM, 'other').map(platformResource),
    fc.string({ maxLength: 20 }),
  ),
});
const bindings = fc.array(binding, { maxLength: 6 });

const tenant = (role: string, name: string): RoleBinding => ({ role, resource: tenantResource(name) });

t.test('each tenant role grants exactly its permissions in its own tenant', async (t) => {
  const granted = (role: TenantRole) =>
    PERMISSIONS.filter((p) => authorize([tenant(role, 'acme')], PLATFORM, p, 'acme'));
  t.same(granted('viewer'), ['tenant.read']);
  t.same(granted('operator'), ['tenant.read', 'clusters.register']);
  t.same(granted('admin'), ['tenant.read', 'clusters.register', 'members.manage']);
});

t.test('tenant admins and operators may use kubectl, viewers may not', async (t) => {
  const may = (role: TenantRole) => authorize([tenant(role, 'acme')], PLATFORM, KUBECTL_PERMISSION, 'acme');
  t.ok(may('admin'));
  t.ok(may('operator'));
  t.notOk(may('viewer'));
});

t.test('a higher tenant role has every permission of a lower one', async () => {
  fc.assert(
    fc.property(fc.nat(ASCENDING.length - 1), fc.nat(ASCENDING.length - 1), permission, org, (i, j, p, name) => {
      const [low, high] = [ASCENDING[Math.min(i, j)]!, ASCENDING[Math.max(i, j)]!];
      if (authorize([tenant(low, name)], PLATFORM, p, name)) return authorize([tenant(high, name)], PLATFORM, p, name);
      return true;
    }),
  );
});

t.test('a tenant role grants nothing in another tenant, nor without a tenant', async () => {
  fc.assert(
    fc.property(tenantRoleArb, org, org, permission, (role, mine, other, p) => {
      fc.pre(mine !== other);
      return !authorize([tenant(role, mine)], PLATFORM, p, other) && !authorize([tenant(role, mine)], PLATFORM, p);
    }),
  );
});

t.test('only a platform admin holds platform.admin', async () => {
  fc.assert(
    fc.property(bindings, fc.option(org, { nil: undefined }), (held, name) => {
      return authorize(held, PLATFORM, 'platform.admin', name) === isPlatformAdmin(held, PLATFORM);
    }),
  );
});

t.test('a platform admin holds every permission, in every tenant and none', async () => {
  fc.assert(
    fc.property(bindings, permission, fc.option(org, { nil: undefined }), (held, p, name) => {
      const admin = [...held, { role: PLATFORM_ADMIN_ROLE, resource: platformResource(PLATFORM) }];
      return authorize(admin, PLATFORM, p, name);
    }),
  );
});

t.test("another platform's admin is no admin here", async (t) => {
  const elsewhere = [{ role: PLATFORM_ADMIN_ROLE, resource: platformResource('other') }];
  t.notOk(isPlatformAdmin(elsewhere, PLATFORM));
  for (const p of PERMISSIONS) t.notOk(authorize(elsewhere, PLATFORM, p, 'acme'), p);
});

t.test('a role the table does not know grants nothing', async () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 12 }), org, permission, (role, name, p) => {
      fc.pre(!(TENANT_ROLES as readonly string[]).includes(role) && role !== PLATFORM_ADMIN_ROLE);
      return (
        tenantRole([tenant(role, name)], name) === undefined && !authorize([tenant(role, name)], PLATFORM, p, name)
      );
    }),
  );
});

t.test('a binding added after the others never takes a permission away', async () => {
  // tenantRole reads the first binding of a tenant: one added after it changes nothing there.
  fc.assert(
    fc.property(bindings, binding, permission, fc.option(org, { nil: undefined }), (held, extra, p, name) => {
      if (!authorize(held, PLATFORM, p, name)) return true;
      return authorize([...held, extra], PLATFORM, p, name);
    }),
  );
});

t.test("a caller's role in a tenant is the one bound on that tenant", async (t) => {
  t.equal(tenantRole([tenant('admin', 'other'), tenant('operator', 'acme')], 'acme'), 'operator');
  t.equal(tenantRole([], 'acme'), undefined);
});
