/**
 * npm start's tenant `dev` (DEV_TENANT) and its cluster `local`, made through the API server as the
 * development admin: the console's users as members, and the cluster whose agent runs here.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliAccess } from './access.js';
import { DEV_TENANT, subjectOf } from './issuer/users.js';
import type { DevUser } from './issuer/users.js';

export const DEV_CLUSTER = 'local';
/** The subject of the banner's platform-admin token. */
export const DEV_ADMIN = 'dev-admin';

/** A call to the API server as the development admin; a 404 answers its body, a 204 nothing. */
export type DevApi = (method: string, path: string, body?: unknown) => Promise<Record<string, unknown> | undefined>;

/** The agent of cluster `local`: its id and the token it dials with. */
export interface DevAgent {
  id: string;
  agentToken: string;
}

export function devApi(apiUrl: string, token: string): DevApi {
  return async (method, path, body) => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok && res.status !== 404) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.status === 204 ? undefined : ((await res.json()) as Record<string, unknown>);
  };
}

/**
 * Makes DEV_ADMIN and the development users (named as the API server names them) members of the
 * tenant, and answers the agent of its cluster `local`: the one kept in the data directory while
 * the cluster exists, else a cluster registered anew (its token is shown only once).
 */
export async function registerDevTenant(
  api: DevApi,
  { dataDir, issuerUrl, users }: { dataDir: string; issuerUrl: string; users: readonly DevUser[] },
): Promise<DevAgent> {
  await api('PUT', `/api/v1/tenants/${DEV_TENANT}/members/${DEV_ADMIN}`, { role: 'admin' });
  for (const { login, tenantRole } of users) {
    if (tenantRole === undefined) continue;
    const member = encodeURIComponent(subjectOf(issuerUrl, login));
    await api('PUT', `/api/v1/tenants/${DEV_TENANT}/members/${member}`, { role: tenantRole });
  }
  const agentFile = join(dataDir, 'dev-agent.json');
  const path = `/api/v1/tenants/${DEV_TENANT}/clusters`;
  const clusters = ((await api('GET', path))?.clusters ?? []) as { id: string; name: string }[];
  const kept = existsSync(agentFile) ? (JSON.parse(readFileSync(agentFile, 'utf8')) as DevAgent) : undefined;
  if (kept && clusters.some((c) => c.id === kept.id)) return kept;
  for (const c of clusters.filter((c) => c.name === DEV_CLUSTER)) await api('DELETE', `${path}/${c.id}`);
  const created = (await api('POST', path, { name: DEV_CLUSTER })) as unknown as DevAgent;
  const agent = { id: created.id, agentToken: created.agentToken };
  writeFileSync(agentFile, JSON.stringify(agent), { mode: 0o600 });
  return agent;
}

/** The cluster's kubectl access as the API server decides it now. */
export async function clusterAccess(api: DevApi, clusterId: string): Promise<CliAccess> {
  return (await api('GET', `/api/v1/tenants/${DEV_TENANT}/clusters/${clusterId}/access`))!.cliAccess as CliAccess;
}
