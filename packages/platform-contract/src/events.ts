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
/** A cluster was registered (no right changes: nobody could reach it before). */
export const CLUSTER_REGISTERED_EVENT = 'clusters.registered';
/** A cluster's agent connected to or disconnected from a proxy replica, or its lease ran out. */
export const AGENT_PRESENCE_EVENT = 'agents.presence';
/** A console session ended before its expiry (signed out): whatever it opened must close. */
export const CONSOLE_SESSION_ENDED_EVENT = 'console.session-ended';

export type FlagEventScope =
  { type: 'platform'; platformId?: string } | { type: 'cluster'; org: string; clusterId: string };

/**
 * What a committed flag write announces: actor, scope and value, plus the outbox id, and since
 * migration 003 the record written (why, until when, as what). A clear at `expiresAt` is
 * `value: null`, `actor: "system:expiry"`, `cause: "expiry"`, with the reason it cleared.
 */
export interface FlagEvent {
  /** Outbox event id; absent for in-process notifications that bypass the outbox. */
  id?: string;
  flag: string;
  actor: string;
  scope: FlagEventScope;
  value: boolean | null;
  /** `platform-admin`, a tenant role, or `system`. */
  actorRole?: string;
  /** RFC 3339, when it was written. */
  setAt?: string;
  reason?: string | null;
  /** RFC 3339; the value is cleared then. */
  expiresAt?: string | null;
  /** `expiry`: cleared because `expiresAt` passed, not by a request. */
  cause?: 'request' | 'expiry';
}

/** A cluster registered: its tenant, id and name. */
export interface ClusterRegisteredEvent {
  id?: string;
  org: string;
  clusterId: string;
  name: string;
  actor: string;
}

/** A cluster's agent presence as it stands after a change (any proxy replica holding a live tunnel). */
export interface AgentPresenceEvent {
  id?: string;
  org: string;
  clusterId: string;
  connected: boolean;
  /** RFC 3339: since when it has been connected (the oldest live tunnel); null when disconnected. */
  since: string | null;
}

/**
 * A console session that ended: the SHA-256 of its id (base64url, as `console_sessions.id_hash`
 * stores it), never the id itself, which would sign in whoever reads the bus.
 */
export interface ConsoleSessionEndedEvent {
  id?: string;
  sessionHash: string;
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

export function isClusterRegisteredEvent(value: unknown): value is ClusterRegisteredEvent {
  return isObject(value) && typeof value.org === 'string' && typeof value.clusterId === 'string';
}

export function isAgentPresenceEvent(value: unknown): value is AgentPresenceEvent {
  return (
    isObject(value) &&
    typeof value.org === 'string' &&
    typeof value.clusterId === 'string' &&
    typeof value.connected === 'boolean'
  );
}

export function isConsoleSessionEndedEvent(value: unknown): value is ConsoleSessionEndedEvent {
  return isObject(value) && typeof value.sessionHash === 'string' && value.sessionHash !== '';
}
