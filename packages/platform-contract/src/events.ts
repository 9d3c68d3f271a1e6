import type { TenantRole } from './permissions.js';

/**
 * Events the API server commits to its outbox and its relay publishes (on Redis, the channel is
 * the event's name behind the deployment's key prefix). Every consumer drops what an event may
 * have changed; none relies on an event arriving, because caches also expire.
 */

/** A flag value was written or cleared (the specification's outbox event). */
export const FLAG_UPDATED_EVENT = 'featureflags.updated';
/** A right to reach a cluster changed: a member's role, a cluster's existence, its agent token. */
export const ACCESS_CHANGED_EVENT = 'access.changed';

export type FlagEventScope =
  { type: 'platform'; platformId?: string } | { type: 'cluster'; org: string; clusterId: string };

/** What a committed flag write announces: actor, scope and value, plus the outbox id. */
export interface FlagEvent {
  /** Outbox event id; absent for in-process notifications that bypass the outbox. */
  id?: string;
  flag: string;
  actor: string;
  scope: FlagEventScope;
  value: boolean | null;
}

export type AccessChange =
  /** `role` is the member's role now; null once removed. */
  | { kind: 'member'; org: string; subject: string; role: TenantRole | null }
  | { kind: 'cluster-deleted'; org: string; clusterId: string }
  | { kind: 'agent-token-rotated'; org: string; clusterId: string };

export type AccessEvent = AccessChange & { id?: string; actor: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

export function isFlagEvent(value: unknown): value is FlagEvent {
  if (!isObject(value) || typeof value.flag !== 'string' || !isObject(value.scope)) return false;
  const scope = value.scope;
  return scope.type === 'platform' || (scope.type === 'cluster' && typeof scope.clusterId === 'string');
}

export function isAccessEvent(value: unknown): value is AccessEvent {
  if (!isObject(value) || typeof value.org !== 'string') return false;
  switch (value.kind) {
    case 'member':
      return typeof value.subject === 'string';
    case 'cluster-deleted':
    case 'agent-token-rotated':
      return typeof value.clusterId === 'string';
    default:
      return false;
  }
}
