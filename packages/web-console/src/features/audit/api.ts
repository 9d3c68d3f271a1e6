import { getJson } from '../../lib/api';
import type { components, JsonAnswer, paths } from '../../lib/api';

/** One row of `GET /api/v1/platform/audit`. */
export type AuditItem = components['schemas']['AuditEntry'];
export type AuditPage = JsonAnswer<paths['/api/v1/platform/audit']['get']>;

export interface AuditFilter {
  action: string;
  actor: string;
}

export const PAGE_SIZE = 20;

/** A page of the platform's audit, newest first; `cursor` continues the previous page of the same filter. */
export function loadAuditPage(filter: AuditFilter, cursor: string | null, signal?: AbortSignal): Promise<AuditPage> {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (filter.action !== '') query.set('action', filter.action);
  if (filter.actor.trim() !== '') query.set('actor', filter.actor.trim());
  if (cursor !== null) query.set('cursor', cursor);
  return getJson<AuditPage>(`/api/v1/platform/audit?${query.toString()}`, signal);
}
