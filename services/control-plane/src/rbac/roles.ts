import { parse } from 'yaml';

export const VERBS = ['get', 'list', 'create', 'update', 'delete', 'execute'] as const;
export type Verb = (typeof VERBS)[number];

/** What a role grants: verbs on a resource (`*` = every resource), optionally only in some namespaces. */
export interface Grant {
  resource: string;
  verbs: readonly Verb[];
  namespaces?: readonly string[] | undefined;
}

/** What a route needs. */
export interface Permission {
  resource: string;
  verb: Verb;
}

export interface Role {
  name: string;
  /** Own grants plus every inherited one, flattened at start. */
  grants: readonly Grant[];
}

/** The game-server resources viewers may read; API keys are an admin matter. */
export const RESOURCES = [
  'session',
  'gameservers',
  'fleets',
  'profiles',
  'snapshots',
  'logs',
  'console',
  'apikeys',
] as const;
const READABLE = ['session', 'gameservers', 'fleets', 'profiles', 'snapshots', 'logs'];

interface RoleSpec {
  inherits?: readonly string[];
  permissions: readonly Grant[];
}

const BUILT_IN: Readonly<Record<string, RoleSpec>> = {
  viewer: { permissions: READABLE.map((resource) => ({ resource, verbs: ['get', 'list'] as Verb[] })) },
  operator: {
    inherits: ['viewer'],
    permissions: [
      { resource: 'gameservers', verbs: ['execute'] },
      { resource: 'snapshots', verbs: ['create'] },
      { resource: 'console', verbs: ['execute'] },
    ],
  },
  admin: {
    inherits: ['operator'],
    // Everything: creating and deleting game servers, managing API keys, and whatever custom roles may hold.
    permissions: [{ resource: '*', verbs: [...VERBS] }],
  },
};

/** Built-in roles from lowest to highest; used to pick the highest of several mapped roles. */
export const BUILT_IN_ORDER = ['viewer', 'operator', 'admin'] as const;

export class RoleDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RoleDefinitionError';
  }
}

export class Roles {
  private readonly roles = new Map<string, Role>();

  constructor(roles: Iterable<Role>) {
    for (const role of roles) this.roles.set(role.name, role);
  }

  get(name: string): Role | undefined {
    return this.roles.get(name);
  }

  has(name: string): boolean {
    return this.roles.has(name);
  }

  names(): string[] {
    return [...this.roles.keys()];
  }

  /** True when `higher` can do everything `lower` can (so a caller may hand `lower` out). */
  covers(higher: string, lower: string): boolean {
    const a = this.roles.get(higher);
    const b = this.roles.get(lower);
    if (!a || !b) return false;
    return b.grants.every((g) =>
      g.verbs.every((verb) => {
        const resources = g.resource === '*' ? [...RESOURCES] : [g.resource];
        return resources.every((resource) => {
          const allowed = allowedNamespaces(a, { resource, verb });
          if (allowed === 'all') return true;
          if (g.namespaces === undefined) return false;
          return g.namespaces.every((ns) => allowed.has(ns));
        });
      }),
    );
  }

  /** The highest of several roles: one that covers all the others, else the one granting most. */
  highest(names: readonly string[]): string | undefined {
    const known = [...new Set(names)].filter((n) => this.roles.has(n));
    const top = known.find((n) => known.every((m) => this.covers(n, m)));
    if (top !== undefined) return top;
    return known.sort((x, y) => (this.roles.get(y)?.grants.length ?? 0) - (this.roles.get(x)?.grants.length ?? 0))[0];
  }
}

function grantMatches(grant: Grant, permission: Permission): boolean {
  return (grant.resource === '*' || grant.resource === permission.resource) && grant.verbs.includes(permission.verb);
}

/** The namespaces in which `role` holds `permission`: every namespace, or a (possibly empty) set. */
export function allowedNamespaces(role: Role | undefined, permission: Permission): 'all' | ReadonlySet<string> {
  const namespaces = new Set<string>();
  if (!role) return namespaces;
  for (const grant of role.grants) {
    if (!grantMatches(grant, permission)) continue;
    if (grant.namespaces === undefined) return 'all';
    for (const ns of grant.namespaces) namespaces.add(ns);
  }
  return namespaces;
}

export interface Subject {
  role: Role | undefined;
}

/**
 * The one authorization decision. Without `namespace` the permission is needed everywhere
 * (cluster-wide routes); with it, a grant limited to that namespace is enough.
 */
export function authorize(user: Subject, permission: Permission, namespace?: string): boolean {
  const allowed = allowedNamespaces(user.role, permission);
  if (allowed === 'all') return true;
  return namespace !== undefined && allowed.has(namespace);
}

function flatten(specs: ReadonlyMap<string, RoleSpec>): Role[] {
  const done = new Map<string, Grant[]>();
  const visiting = new Set<string>();
  const visit = (name: string, path: string[]): Grant[] => {
    const finished = done.get(name);
    if (finished) return finished;
    const spec = specs.get(name);
    if (!spec)
      throw new RoleDefinitionError(
        `role ${JSON.stringify(path[path.length - 1])} inherits unknown role ${JSON.stringify(name)}`,
      );
    if (visiting.has(name)) throw new RoleDefinitionError(`roles inherit in a cycle: ${[...path, name].join(' -> ')}`);
    visiting.add(name);
    const grants = [...(spec.inherits ?? []).flatMap((parent) => visit(parent, [...path, name])), ...spec.permissions];
    visiting.delete(name);
    done.set(name, grants);
    return grants;
  };
  return [...specs.keys()].map((name) => ({ name, grants: visit(name, []) }));
}

const ROLE_NAME = /^[a-z][a-z0-9-]{0,62}$/;

function parseGrant(role: string, raw: unknown, index: number): Grant {
  const where = `role ${JSON.stringify(role)} permission ${index + 1}`;
  if (typeof raw !== 'object' || raw === null)
    throw new RoleDefinitionError(`${where}: must be a mapping with resource and verbs`);
  const { resource, verbs, namespaces } = raw as Record<string, unknown>;
  if (typeof resource !== 'string' || (resource !== '*' && !(RESOURCES as readonly string[]).includes(resource))) {
    throw new RoleDefinitionError(
      `${where}: unknown resource ${JSON.stringify(resource)} (known: *, ${RESOURCES.join(', ')})`,
    );
  }
  if (!Array.isArray(verbs) || verbs.length === 0)
    throw new RoleDefinitionError(`${where}: verbs must be a non-empty list`);
  for (const verb of verbs) {
    if (verb !== '*' && !(VERBS as readonly unknown[]).includes(verb))
      throw new RoleDefinitionError(`${where}: unknown verb ${JSON.stringify(verb)} (known: *, ${VERBS.join(', ')})`);
  }
  if (
    namespaces !== undefined &&
    (!Array.isArray(namespaces) ||
      namespaces.length === 0 ||
      !namespaces.every((n) => typeof n === 'string' && n !== ''))
  ) {
    throw new RoleDefinitionError(`${where}: namespaces must be a non-empty list of names`);
  }
  return {
    resource,
    verbs: verbs.includes('*') ? [...VERBS] : (verbs as Verb[]),
    ...(namespaces === undefined ? {} : { namespaces: namespaces as string[] }),
  };
}

/**
 * Built-in roles plus the custom roles of an RBAC_ROLES_FILE document (YAML
 * `roles: {name: {inherits, permissions}}`).
 */
export function loadRoles(yamlText?: string): Roles {
  const specs = new Map<string, RoleSpec>(Object.entries(BUILT_IN));
  if (yamlText !== undefined) {
    let doc: unknown;
    try {
      doc = parse(yamlText);
    } catch (err) {
      throw new RoleDefinitionError(`not valid YAML: ${(err as Error).message.split('\n')[0]}`);
    }
    const roles = (doc as { roles?: unknown } | null)?.roles;
    if (typeof roles !== 'object' || roles === null || Array.isArray(roles))
      throw new RoleDefinitionError('expected a mapping "roles:" of role names to definitions');
    for (const [name, raw] of Object.entries(roles as Record<string, unknown>)) {
      if (!ROLE_NAME.test(name))
        throw new RoleDefinitionError(`role name ${JSON.stringify(name)} must be lower-case letters, digits and "-"`);
      if (specs.has(name))
        throw new RoleDefinitionError(
          `role ${JSON.stringify(name)} is already defined (built-in roles cannot be redefined)`,
        );
      const def = (raw ?? {}) as { inherits?: unknown; permissions?: unknown };
      const inherits =
        def.inherits === undefined ? [] : typeof def.inherits === 'string' ? [def.inherits] : def.inherits;
      if (!Array.isArray(inherits) || !inherits.every((i) => typeof i === 'string'))
        throw new RoleDefinitionError(`role ${JSON.stringify(name)}: inherits must be a role name or a list of them`);
      const permissions = def.permissions ?? [];
      if (!Array.isArray(permissions))
        throw new RoleDefinitionError(`role ${JSON.stringify(name)}: permissions must be a list`);
      specs.set(name, {
        inherits: inherits as string[],
        permissions: permissions.map((p, i) => parseGrant(name, p, i)),
      });
    }
  }
  return new Roles(flatten(specs));
}
