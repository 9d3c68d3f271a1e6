import { apiUrl, getJson, send } from '../../lib/api';

export type Role = 'admin' | 'operator' | 'viewer';

export interface Membership {
  org: string;
  role: Role;
}

/** Who set a value, when, why and until when (`actor` null: a platform admin, not named to tenants). */
export interface SwitchRecord {
  value: boolean;
  actor: string | null;
  /** What the actor is called, where the platform knows it (their last console sign-in). */
  actorName?: string;
  actorRole: string | null;
  setAt: string;
  reason: string | null;
  expiresAt: string | null;
}

/** A cluster's effective `cli_access.enabled`; `message`: what kubectl is refused with, null while on. */
export interface CliAccess {
  enabled: boolean;
  source: string;
  envPinned: boolean;
  record: SwitchRecord | null;
  message: string | null;
}

export interface Cluster {
  id: string;
  name: string;
  org: string;
  createdBy: string;
  createdAt: string;
  agent: { connected: boolean; since: string | null };
  cliAccess: CliAccess;
}

/** A registration's answer: the agent token, shown once, and where the agent dials. */
export interface Registered {
  id: string;
  name: string;
  org: string;
  agentToken: string;
  tunnelUrl: string;
}

/** `name`: what the member is called, where the platform knows it (their last console sign-in). */
export interface Member {
  subject: string;
  role: Role;
  name?: string;
}

/** `issuer`: the platform's OIDC issuer; its users are members as `<issuer>#<sub>` (null: none configured). */
export interface MemberList {
  members: Member[];
  issuer: string | null;
}

/** A tenant as platform admins list them. */
export interface TenantSummary {
  org: string;
  createdAt: string;
  clusters: number;
  members: number;
}

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
  return (await getJson<{ tenants: Membership[] }>('/api/v1/me', signal)).tenants;
}

export async function loadClusters(org: string, signal: AbortSignal): Promise<Cluster[]> {
  return (await getJson<{ clusters: Cluster[] }>(`${tenantPath(org)}/clusters`, signal)).clusters;
}

/** Sets the cluster's own value, overriding the platform's. */
export async function setOverride(
  org: string,
  id: string,
  body: { value: boolean; reason?: string; expiresAt?: string },
): Promise<void> {
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
  return (await getJson<{ tenants: TenantSummary[] }>('/api/v1/tenants', signal)).tenants;
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
