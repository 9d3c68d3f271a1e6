import { RUN_ACTION } from '../contract.js';
import type { Permission } from './roles.js';

/**
 * How a route's namespace is checked: `cluster` needs the permission everywhere, `namespace`
 * in the `:namespace` of the URL, `filtered` in at least one namespace (results are filtered).
 */
export type Scope = 'cluster' | 'namespace' | 'filtered';

export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  permission: Permission;
  scope: Scope;
  /** The lowest built-in role allowed; documentation and the role-matrix test. */
  minimumRole: 'viewer' | 'operator' | 'admin';
}

/** Every authenticated route and the permission it needs, in one place. */
export const ROUTES = {
  getSession: {
    method: 'GET',
    url: '/api/v1/session',
    permission: { resource: 'session', verb: 'get' },
    scope: 'cluster',
    minimumRole: 'viewer',
  },
  listGameServers: {
    method: 'GET',
    url: '/api/v1/gameservers',
    permission: { resource: 'gameservers', verb: 'list' },
    scope: 'filtered',
    minimumRole: 'viewer',
  },
  watchGameServers: {
    method: 'GET',
    url: '/api/v1/events/gameservers',
    permission: { resource: 'gameservers', verb: 'list' },
    scope: 'filtered',
    minimumRole: 'viewer',
  },
  getGameServer: {
    method: 'GET',
    url: '/api/v1/gameservers/:namespace/:name',
    permission: { resource: 'gameservers', verb: 'get' },
    scope: 'namespace',
    minimumRole: 'viewer',
  },
  createGameServer: {
    method: 'POST',
    url: '/api/v1/gameservers/:namespace',
    permission: { resource: 'gameservers', verb: 'create' },
    scope: 'namespace',
    minimumRole: 'admin',
  },
  deleteGameServer: {
    method: 'DELETE',
    url: '/api/v1/gameservers/:namespace/:name',
    permission: { resource: 'gameservers', verb: 'delete' },
    scope: 'namespace',
    minimumRole: 'admin',
  },
  // What it takes is shared with the panel (src/contract.ts), with what a deleting shutdown takes.
  runAction: {
    method: 'POST',
    url: '/api/v1/gameservers/:namespace/:name/actions/:action',
    permission: RUN_ACTION.permission,
    scope: 'namespace',
    minimumRole: RUN_ACTION.minimumRole,
  },
  openConsole: {
    method: 'GET',
    url: '/api/v1/gameservers/:namespace/:name/console',
    permission: { resource: 'console', verb: 'execute' },
    scope: 'namespace',
    minimumRole: 'operator',
  },
  createConsoleTicket: {
    method: 'POST',
    url: '/api/v1/gameservers/:namespace/:name/console/tickets',
    permission: { resource: 'console', verb: 'execute' },
    scope: 'namespace',
    minimumRole: 'operator',
  },
  getLogs: {
    method: 'GET',
    url: '/api/v1/gameservers/:namespace/:name/logs',
    permission: { resource: 'logs', verb: 'get' },
    scope: 'namespace',
    minimumRole: 'viewer',
  },
  createSnapshot: {
    method: 'POST',
    url: '/api/v1/gameservers/:namespace/:name/snapshots',
    permission: { resource: 'snapshots', verb: 'create' },
    scope: 'namespace',
    minimumRole: 'operator',
  },
  listGameServerSnapshots: {
    method: 'GET',
    url: '/api/v1/gameservers/:namespace/:name/snapshots',
    permission: { resource: 'snapshots', verb: 'list' },
    scope: 'namespace',
    minimumRole: 'viewer',
  },
  listSnapshots: {
    method: 'GET',
    url: '/api/v1/snapshots',
    permission: { resource: 'snapshots', verb: 'list' },
    scope: 'filtered',
    minimumRole: 'viewer',
  },
  getSnapshot: {
    method: 'GET',
    url: '/api/v1/snapshots/:namespace/:name',
    permission: { resource: 'snapshots', verb: 'get' },
    scope: 'namespace',
    minimumRole: 'viewer',
  },
  deleteSnapshot: {
    method: 'DELETE',
    url: '/api/v1/snapshots/:namespace/:name',
    permission: { resource: 'snapshots', verb: 'delete' },
    scope: 'namespace',
    minimumRole: 'admin',
  },
  listProfiles: {
    method: 'GET',
    url: '/api/v1/profiles',
    permission: { resource: 'profiles', verb: 'list' },
    scope: 'cluster',
    minimumRole: 'viewer',
  },
  getProfile: {
    method: 'GET',
    url: '/api/v1/profiles/:name',
    permission: { resource: 'profiles', verb: 'get' },
    scope: 'cluster',
    minimumRole: 'viewer',
  },
  putProfile: {
    method: 'PUT',
    url: '/api/v1/profiles/:name',
    permission: { resource: 'profiles', verb: 'update' },
    scope: 'cluster',
    minimumRole: 'admin',
  },
  deleteProfile: {
    method: 'DELETE',
    url: '/api/v1/profiles/:name',
    permission: { resource: 'profiles', verb: 'delete' },
    scope: 'cluster',
    minimumRole: 'admin',
  },
  listFleets: {
    method: 'GET',
    url: '/api/v1/fleets',
    permission: { resource: 'fleets', verb: 'list' },
    scope: 'filtered',
    minimumRole: 'viewer',
  },
  getFleet: {
    method: 'GET',
    url: '/api/v1/fleets/:namespace/:name',
    permission: { resource: 'fleets', verb: 'get' },
    scope: 'namespace',
    minimumRole: 'viewer',
  },
  // Scaling creates and deletes game servers, so it takes what creating and deleting them takes.
  scaleFleet: {
    method: 'POST',
    url: '/api/v1/fleets/:namespace/:name/scale',
    permission: { resource: 'fleets', verb: 'update' },
    scope: 'namespace',
    minimumRole: 'admin',
  },
  listApiKeys: {
    method: 'GET',
    url: '/api/v1/apikeys',
    permission: { resource: 'apikeys', verb: 'list' },
    scope: 'cluster',
    minimumRole: 'admin',
  },
  createApiKey: {
    method: 'POST',
    url: '/api/v1/apikeys',
    permission: { resource: 'apikeys', verb: 'create' },
    scope: 'cluster',
    minimumRole: 'admin',
  },
  deleteApiKey: {
    method: 'DELETE',
    url: '/api/v1/apikeys/:name',
    permission: { resource: 'apikeys', verb: 'delete' },
    scope: 'cluster',
    minimumRole: 'admin',
  },
} as const satisfies Record<string, RouteSpec>;

export type RouteId = keyof typeof ROUTES;

/** Routes anyone may call (probes, the API document): neither authenticated, audited nor rate limited. */
export const PUBLIC_ROUTES = {
  health: { method: 'GET', url: '/healthz' },
  readiness: { method: 'GET', url: '/readyz' },
  openApi: { method: 'GET', url: '/openapi.json' },
} as const satisfies Record<string, Pick<RouteSpec, 'method' | 'url'>>;

export type PublicRouteId = keyof typeof PUBLIC_ROUTES;

const PUBLIC = { public: true, audit: false, rateLimit: false } as const;

/**
 * The method, URL and config of a table entry, to spread into a route declaration; `errors` are
 * the statuses beyond the usual ones the route may answer (documented in /openapi.json). Pass
 * them here rather than overriding `config`, which would drop the permission check.
 */
export function routeOf<Id extends RouteId>(
  id: Id,
  errors?: readonly number[],
): {
  method: (typeof ROUTES)[Id]['method'];
  url: (typeof ROUTES)[Id]['url'];
  config: { permission: Permission; scope: Scope; errors?: readonly number[] };
};
export function routeOf<Id extends PublicRouteId>(
  id: Id,
  errors?: readonly number[],
): {
  method: (typeof PUBLIC_ROUTES)[Id]['method'];
  url: (typeof PUBLIC_ROUTES)[Id]['url'];
  config: typeof PUBLIC & { errors?: readonly number[] };
};
export function routeOf(id: RouteId | PublicRouteId, errors?: readonly number[]) {
  const extra = errors ? { errors } : {};
  if (id in PUBLIC_ROUTES) {
    const { method, url } = PUBLIC_ROUTES[id as PublicRouteId];
    return { method, url, config: { ...PUBLIC, ...extra } };
  }
  const spec: RouteSpec = ROUTES[id as RouteId];
  return { method: spec.method, url: spec.url, config: { permission: spec.permission, scope: spec.scope, ...extra } };
}
