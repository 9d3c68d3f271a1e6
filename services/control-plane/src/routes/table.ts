import type { Permission } from '../rbac/roles.js';

/**
 * How a route's namespace is checked: `cluster` needs the permission everywhere, `namespace`
 * in the `:namespace` of the URL, `filtered` in at least one namespace (results are filtered).
 */
export type Scope = 'cluster' | 'namespace' | 'filtered';

export interface RouteSpec {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  permission: Permission;
  scope: Scope;
  /** The lowest built-in role allowed; documentation and the role-matrix test. */
  minimumRole: 'viewer' | 'operator' | 'admin';
}

/** Every authenticated route and the permission it needs, in one place. */
export const ROUTES = {
  getSession: { method: 'GET', url: '/api/v1/session', permission: { resource: 'session', verb: 'get' }, scope: 'cluster', minimumRole: 'viewer' },
  listGameServers: { method: 'GET', url: '/api/v1/gameservers', permission: { resource: 'gameservers', verb: 'list' }, scope: 'filtered', minimumRole: 'viewer' },
  listNamespacedGameServers: { method: 'GET', url: '/api/v1/namespaces/:namespace/gameservers', permission: { resource: 'gameservers', verb: 'list' }, scope: 'namespace', minimumRole: 'viewer' },
  getGameServer: { method: 'GET', url: '/api/v1/namespaces/:namespace/gameservers/:name', permission: { resource: 'gameservers', verb: 'get' }, scope: 'namespace', minimumRole: 'viewer' },
  createGameServer: { method: 'POST', url: '/api/v1/namespaces/:namespace/gameservers', permission: { resource: 'gameservers', verb: 'create' }, scope: 'namespace', minimumRole: 'admin' },
  deleteGameServer: { method: 'DELETE', url: '/api/v1/namespaces/:namespace/gameservers/:name', permission: { resource: 'gameservers', verb: 'delete' }, scope: 'namespace', minimumRole: 'admin' },
  executeAction: { method: 'POST', url: '/api/v1/namespaces/:namespace/gameservers/:name/actions', permission: { resource: 'gameservers', verb: 'execute' }, scope: 'namespace', minimumRole: 'operator' },
  createSnapshot: { method: 'POST', url: '/api/v1/namespaces/:namespace/gameservers/:name/snapshots', permission: { resource: 'snapshots', verb: 'create' }, scope: 'namespace', minimumRole: 'operator' },
  openConsole: { method: 'GET', url: '/api/v1/namespaces/:namespace/gameservers/:name/console', permission: { resource: 'console', verb: 'execute' }, scope: 'namespace', minimumRole: 'operator' },
  listFleets: { method: 'GET', url: '/api/v1/fleets', permission: { resource: 'fleets', verb: 'list' }, scope: 'filtered', minimumRole: 'viewer' },
  listNamespacedFleets: { method: 'GET', url: '/api/v1/namespaces/:namespace/fleets', permission: { resource: 'fleets', verb: 'list' }, scope: 'namespace', minimumRole: 'viewer' },
  listProfiles: { method: 'GET', url: '/api/v1/profiles', permission: { resource: 'profiles', verb: 'list' }, scope: 'cluster', minimumRole: 'viewer' },
  listApiKeys: { method: 'GET', url: '/api/v1/apikeys', permission: { resource: 'apikeys', verb: 'list' }, scope: 'cluster', minimumRole: 'admin' },
  createApiKey: { method: 'POST', url: '/api/v1/apikeys', permission: { resource: 'apikeys', verb: 'create' }, scope: 'cluster', minimumRole: 'admin' },
  deleteApiKey: { method: 'DELETE', url: '/api/v1/apikeys/:name', permission: { resource: 'apikeys', verb: 'delete' }, scope: 'cluster', minimumRole: 'admin' },
} as const satisfies Record<string, RouteSpec>;

export type RouteId = keyof typeof ROUTES;

/** The method, URL and config of a table entry, to spread into a route declaration. */
export function routeOf<Id extends RouteId>(id: Id): { method: (typeof ROUTES)[Id]['method']; url: (typeof ROUTES)[Id]['url']; config: { permission: Permission; scope: Scope } } {
  const spec: RouteSpec = ROUTES[id];
  return { method: ROUTES[id].method, url: ROUTES[id].url, config: { permission: spec.permission, scope: spec.scope } };
}
