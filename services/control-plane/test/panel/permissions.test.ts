import fc from 'fast-check';
import t from 'tap';
import { permissionsOf } from '../../src/panel/permissions.js';
import { authorize, loadRoles, RESOURCES, VERBS } from '../../src/rbac/roles.js';
import type { Grant, Role } from '../../src/rbac/roles.js';

const NAMESPACES = ['games', 'staging', 'prod', 'eu-1'];

const grant: fc.Arbitrary<Grant> = fc.record({
  resource: fc.constantFrom('*', ...RESOURCES),
  verbs: fc.subarray([...VERBS], { minLength: 1 }),
  namespaces: fc.option(fc.subarray(NAMESPACES, { minLength: 1 }), { nil: undefined }),
});
const role: fc.Arbitrary<Role> = fc.record({ name: fc.constant('custom'), grants: fc.array(grant, { maxLength: 6 }) });

t.test('the panel is told exactly what the route checks allow, and where', async (t) => {
  fc.assert(
    fc.property(role, fc.constantFrom(...NAMESPACES, 'elsewhere'), (r, namespace) => {
      const listed = new Map(permissionsOf(r).map((p) => [`${p.resource} ${p.verb}`, p.namespaces]));
      for (const resource of RESOURCES) {
        for (const verb of VERBS) {
          const where = listed.get(`${resource} ${verb}`);
          const permission = { resource, verb };
          // Everywhere: '*' exactly when the cluster-wide check passes.
          if ((where === '*') !== authorize({ role: r }, permission)) return false;
          // In a namespace: listed (or '*') exactly when the namespaced check passes.
          const inNamespace = where === '*' || (where !== undefined && where.includes(namespace));
          if (inNamespace !== authorize({ role: r }, permission, namespace)) return false;
          if (Array.isArray(where) && (where.length === 0 || [...where].sort().join() !== where.join())) return false;
        }
      }
      return true;
    }),
    { numRuns: 500 },
  );
  t.pass('500 random roles');
});

t.test('the built-in roles: a viewer reads, an operator also acts, an admin does everything', async (t) => {
  const roles = loadRoles();
  const pairs = (name: string) =>
    permissionsOf(roles.get(name)).map((p) => `${p.resource}:${p.verb}${p.namespaces === '*' ? '' : '@'}`);
  t.ok(pairs('viewer').includes('gameservers:list'));
  t.notOk(pairs('viewer').includes('gameservers:execute'));
  t.ok(pairs('operator').includes('gameservers:execute'));
  t.ok(pairs('operator').includes('console:execute'));
  t.notOk(pairs('operator').includes('apikeys:list'));
  t.equal(pairs('admin').length, RESOURCES.length * VERBS.length);
  t.same(permissionsOf(undefined), [], 'no role, no permission');
});

t.test('a grant limited to namespaces is listed with those namespaces, sorted', async (t) => {
  const roles = loadRoles(
    'roles:\n  games-op:\n    inherits: viewer\n    permissions:\n' +
      '      - { resource: gameservers, verbs: [execute], namespaces: [staging, games] }\n',
  );
  const perms = permissionsOf(roles.get('games-op'));
  t.same(
    perms.find((p) => p.resource === 'gameservers' && p.verb === 'execute'),
    { resource: 'gameservers', verb: 'execute', namespaces: ['games', 'staging'] },
  );
  t.same(
    perms.find((p) => p.resource === 'gameservers' && p.verb === 'list'),
    { resource: 'gameservers', verb: 'list', namespaces: '*' },
  );
});
