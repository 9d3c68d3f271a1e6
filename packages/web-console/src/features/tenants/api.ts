import { apiUrl, getJson, send } from '../../lib/api';
import type { components, JsonAnswer, JsonBody, paths } from '../../lib/api';

export type { SwitchRecord } from '../../lib/api';

/** `name`: what the member is called, where the platform knows it (their last console sign-in). */
export type Member = components['schemas']['Member'];
export type Role = Member['role'];
export type Membership = JsonAnswer<paths['/api/v1/me']['get']>['tenants'][number];

/**
 * A cluster with its agent and its effective `cli_access.enabled` (`actor` null: a platform admin, not named to
 * tenants).
 */
export type Cluster = components['schemas']['Cluster'];
/** `message`: what kubectl is refused with, null while on. */
export type CliAccess = Cluster['cliAccess'];

/** A registration's answer: the agent token, shown once, and where the agent dials. */
export type Registered = components['schemas']['ClusterWithAgentToken'];

/** `issuer`: the platform's OIDC issuer; its users are members as `<issuer>#<sub>` (null: none configured). */
export type MemberList = JsonAnswer<paths['/api/v1/tenants/{org}/members']['get']>;

/** A tenant as platform admins list them. */
export type TenantSummary = components['schemas']['TenantSummary'];

type Clusters = JsonAnswer<paths['/api/v1/tenants/{org}/clusters']['get']>;
type Tenants = JsonAnswer<paths['/api/v1/tenants']['get']>;
type OverrideBody = JsonBody<paths['/api/v1/tenants/{org}/clusters/{id}/feature-flags/{flag}']['put']>;

export const ROLES: readonly Role[] = ['admin', 'operator', 'viewer'];

export const ROLE_NAMES = new Map<string, string>([
  ['admin', 'Admin'],
  ['operator', 'Operator'],
  ['viewer', 'Viewer'],
]);

/** The path parts come from the API's own answers or checked input; encoded all the same. */
const tenantPath = (org: string) => `/api/v1/tenants/${encodeURIComponent(org)}` as const;
const clusterPath = (org: string, id: string) => `${tenantPath(org)}/clusters/${encodeURIComponent(id)}` as const;
const overridePath = (org: string, id: string) => `${clusterPath(org, id)}/feature-flags/cli_access.enabled` as const;

/** The tenants the caller belongs to, asked again so a role changed or removed elsewhere shows. */
export async function loadMemberships(signal: AbortSignal): Promise<Membership[]> {
  return (await getJson<JsonAnswer<paths['/api/v1/me']['get']>>('/api/v1/me', signal)).tenants;
}

export async function loadClusters(org: string, signal: AbortSignal): Promise<Cluster[]> {
  return (await getJson<Clusters>(`${tenantPath(org)}/clusters`, signal)).clusters;
}

/** Sets the cluster's own value, overriding the platform's. */
export async function setOverride(org: string, id: string, body: OverrideBody): Promise<void> {
  await send('PUT', overridePath(org, id), { body });
}

/** Clears the cluster's own value: the platform's applies again. */
export async function clearOverride(org: string, id: string): Promise<void> {
  await send('DELETE', overridePath(org, id));
}

export async function registerCluster(org: string, name: string): Promise<Registered> {
  const answer = await send<Registered>('POST', `${tenantPath(org)}/clusters`, { body: { name } });
  if (answer === undefined) throw new Error('the API server answered the registration without a body');
  return answer;
}

export async function deleteCluster(org: string, id: string): Promise<void> {
  await send('DELETE', clusterPath(org, id));
}

/** Same-origin, so the browser sends the session cookie with the download. */
export function kubeconfigUrl(org: string, id: string): string {
  return apiUrl(`${clusterPath(org, id)}/kubeconfig`);
}

export async function loadMembers(org: string, signal: AbortSignal): Promise<MemberList> {
  return getJson<MemberList>(`${tenantPath(org)}/members`, signal);
}

/** Every tenant (platform admins only). */
export async function loadTenants(signal: AbortSignal): Promise<TenantSummary[]> {
  return (await getJson<Tenants>('/api/v1/tenants', signal)).tenants;
}

/**
 * The subject a member is added as: what was typed when it names an issuer (`<issuer>#<sub>`) or
 * there is no issuer to name; else the `sub` of a user of the platform's issuer, qualified with it.
 */
export function memberSubject(typed: string, issuer: string | null): string {
  return issuer === null || typed.includes('#') ? typed : `${issuer}#${typed}`;
}

export async function putMember(org: string, subject: string, role: Role): Promise<void> {
  await send('PUT', `${tenantPath(org)}/members/${encodeURIComponent(subject)}`, { body: { role } });
}

export async function removeMember(org: string, subject: string): Promise<void> {
  await send('DELETE', `${tenantPath(org)}/members/${encodeURIComponent(subject)}`);
}
