import { getJson, send } from '../../lib/api';
import type { JsonAnswer, JsonBody, paths } from '../../lib/api';

/** A key as `GET /api/v1/apikeys` lists it: never its value (`lastUsedAt` absent until first recorded). */
export type ApiKey = JsonAnswer<paths['/api/v1/apikeys']['get']>[number];

/** The answer of a create: the key's value, which the API shows in this answer only. */
export type CreatedKey = JsonAnswer<paths['/api/v1/apikeys']['post']>;
type CreateRequest = JsonBody<paths['/api/v1/apikeys']['post']>;

/** The built-in roles, lowest first; a deployment's RBAC_ROLES_FILE may add others. */
export const BUILT_IN_ROLES = ['viewer', 'operator', 'admin'] as const;

export const listApiKeys = (signal: AbortSignal): Promise<ApiKey[]> => getJson<ApiKey[]>('/api/v1/apikeys', signal);

/** Creates key `name` with `role`, valid for `expiresIn` (`3600s`; left out: APIKEY_MAX_TTL, or no expiry). */
export async function createApiKey(request: CreateRequest): Promise<CreatedKey> {
  const created = await send<CreatedKey>('POST', '/api/v1/apikeys', { body: request });
  if (created === undefined) throw new Error('the control plane answered a create without the key');
  return created;
}

export async function revokeApiKey(name: string): Promise<void> {
  await send('DELETE', `/api/v1/apikeys/${encodeURIComponent(name)}`);
}

/**
 * The roles a new key may be given, as far as the page can know them: the built-in ones, the
 * signed-in role and those of existing keys (the API has no list of roles; it refuses one it
 * does not know, or one the caller's role does not cover, with a sentence).
 */
export function knownRoles(own: string | null, keys: readonly ApiKey[]): string[] {
  const roles = new Set<string>(BUILT_IN_ROLES);
  if (own !== null) roles.add(own);
  for (const key of keys) roles.add(key.role);
  return [...BUILT_IN_ROLES, ...[...roles].filter((r) => !(BUILT_IN_ROLES as readonly string[]).includes(r)).sort()];
}

/** An expiry time (RFC 3339) as the create's `expiresIn`: whole seconds from now, at least one. */
export function expiresInOf(expiresAt: string, now = Date.now()): string {
  return `${Math.max(1, Math.round((Date.parse(expiresAt) - now) / 1000))}s`;
}
