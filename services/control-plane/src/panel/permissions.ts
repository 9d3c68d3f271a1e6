import { allowedNamespaces, RESOURCES, VERBS } from '../rbac/roles.js';
import type { Role, Verb } from '../rbac/roles.js';

/** One thing a role may do, and where: what the panel greys its controls out by. */
export interface PanelGrant {
  resource: (typeof RESOURCES)[number];
  verb: Verb;
  /** `*`: in every namespace; else the namespaces named (sorted). */
  namespaces: '*' | string[];
}

/**
 * Every (resource, verb) of RESOURCES x VERBS that `role` grants somewhere, with where, in the
 * order of those two lists; none for no role. The same `allowedNamespaces` the route checks ask.
 */
export function permissionsOf(role: Role | undefined): PanelGrant[] {
  const grants: PanelGrant[] = [];
  for (const resource of RESOURCES) {
    for (const verb of VERBS) {
      const allowed = allowedNamespaces(role, { resource, verb });
      if (allowed === 'all') grants.push({ resource, verb, namespaces: '*' });
      else if (allowed.size > 0) grants.push({ resource, verb, namespaces: [...allowed].sort() });
    }
  }
  return grants;
}
