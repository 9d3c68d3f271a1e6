import {
  ACCESS_CHANGED_EVENT,
  AGENT_PRESENCE_EVENT,
  CLUSTER_REGISTERED_EVENT,
  FLAG_UPDATED_EVENT,
  isAccessEvent,
  isAgentPresenceEvent,
  isClusterRegisteredEvent,
  isFlagEvent,
  PLATFORM_ADMIN_ACTOR,
  TENANT_ROLES,
} from '@gsp/platform-contract';
import type { Identity } from './identity.js';
import type { AgentEventData, ClusterEventData, FlagEventData, MemberEventData } from './schemas.js';

/** The `event` field of each kind of event on the stream. */
export type FeedEventName = 'flag' | 'member' | 'cluster' | 'agent';

/** The bus types the stream carries: one subscription each per process. */
export const FEED_BUS_TYPES = [
  FLAG_UPDATED_EVENT,
  ACCESS_CHANGED_EVENT,
  CLUSTER_REGISTERED_EVENT,
  AGENT_PRESENCE_EVENT,
] as const;

const SYSTEM_PREFIX = 'system:';

type Data =
  | Omit<FlagEventData, 'actor' | 'actorRole'>
  | Omit<MemberEventData, 'actor' | 'actorRole'>
  | Omit<ClusterEventData, 'actor' | 'actorRole'>
  | AgentEventData;

/** How a caller sees an event: as it is, or without its actor's subject. */
export type View = 'full' | 'anonymous';

/**
 * One committed outbox event as the stream shows it. Built once per process and rendered at most
 * twice (full, anonymous) however many streams it reaches.
 */
export class FeedEvent {
  private readonly frames = new Map<View, string>();

  constructor(
    /** The outbox id: a bigint as a string. */
    readonly id: string,
    readonly name: FeedEventName,
    /** The tenant it belongs to; undefined for a platform flag, which every caller sees. */
    readonly org: string | undefined,
    /** A member event's subject: whose rights changed. */
    readonly subject: string | undefined,
    /** Undefined for events without an actor (agent presence). */
    readonly actor: string | undefined,
    /** As recorded, else resolved before fan-out; null while (or when it stays) unknown. */
    public actorRole: string | null,
    private readonly data: Data,
  ) {}

  /** The actor's role is not recorded in the event and must be looked up before anyone sees it. */
  get needsActorRole(): boolean {
    return this.actor !== undefined && this.actorRole === null;
  }

  /** The SSE frame: `id`, `event` and one `data` line (JSON never holds a raw line break). */
  frame(view: View): string {
    let frame = this.frames.get(view);
    if (frame === undefined) {
      const actorFields =
        this.actor === undefined
          ? {}
          : view === 'full'
            ? { actor: this.actor, actorRole: this.actorRole }
            : { actor: null, actorRole: this.actorRole === PLATFORM_ADMIN_ACTOR ? this.actorRole : null };
      frame = `id: ${this.id}\nevent: ${this.name}\ndata: ${JSON.stringify({ ...this.data, ...actorFields })}\n\n`;
      this.frames.set(view, frame);
    }
    return frame;
  }
}

/**
 * Whether `viewer` may see `event`, and how. Platform admins see everything. A tenant member sees
 * its tenants' clusters, agents and cluster flags, every platform flag, and member changes that
 * name it; member changes of others only as the tenant's admin (who may list members). A platform
 * admin's subject is never shown to anyone else, nor an actor whose role could not be told.
 */
export function viewOf(viewer: Identity, event: FeedEvent): View | undefined {
  if (viewer.platformAdmin) return 'full';
  let visible: boolean;
  if (event.org === undefined) visible = true;
  else if (event.name === 'member')
    visible = event.subject === viewer.subject || viewer.tenants.get(event.org) === 'admin';
  else visible = viewer.tenants.has(event.org);
  if (!visible) return undefined;
  return event.actorRole === null || event.actorRole === PLATFORM_ADMIN_ACTOR ? 'anonymous' : 'full';
}

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The role an event's actor recorded, or the one its kind implies. */
function recordedRole(actor: string, recorded: unknown, platformScope: boolean): string | null {
  if (typeof recorded === 'string') return recorded;
  if (actor.startsWith(SYSTEM_PREFIX)) return 'system';
  // Only platform admins write platform-scope values.
  return platformScope ? PLATFORM_ADMIN_ACTOR : null;
}

/** The event a bus payload announces; undefined for a payload of another shape or without an outbox id. */
export function toFeedEvent(type: string, payload: unknown): FeedEvent | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const id = (payload as { id?: unknown }).id;
  if (typeof id !== 'string' || !/^[0-9]{1,19}$/.test(id)) return undefined;
  switch (type) {
    case FLAG_UPDATED_EVENT: {
      if (!isFlagEvent(payload)) return undefined;
      const { scope } = payload;
      // A cluster value without its tenant could not be filtered: shown to nobody rather than to all.
      if (scope.type === 'cluster' && typeof scope.org !== 'string') return undefined;
      const actor = typeof payload.actor === 'string' ? payload.actor : '';
      const value = typeof payload.value === 'boolean' ? payload.value : null;
      const data: Omit<FlagEventData, 'actor' | 'actorRole'> = {
        flag: payload.flag,
        scope:
          scope.type === 'platform'
            ? { type: 'platform' }
            : { type: 'cluster', org: scope.org, clusterId: scope.clusterId },
        value,
        setAt: stringOrNull(payload.setAt),
        reason: stringOrNull(payload.reason),
        expiresAt: stringOrNull(payload.expiresAt),
        cause: payload.cause === 'expiry' ? 'expiry' : 'request',
      };
      const org = scope.type === 'cluster' ? scope.org : undefined;
      const role = recordedRole(actor, payload.actorRole, scope.type === 'platform');
      return new FeedEvent(id, 'flag', org, undefined, actor, role, data);
    }
    case ACCESS_CHANGED_EVENT: {
      if (!isAccessEvent(payload)) return undefined;
      const actor = typeof payload.actor === 'string' ? payload.actor : '';
      const role = recordedRole(actor, undefined, false);
      if (payload.kind === 'member') {
        const memberRole = TENANT_ROLES.find((r) => r === payload.role) ?? null;
        const data = { org: payload.org, subject: payload.subject, role: memberRole };
        return new FeedEvent(id, 'member', payload.org, payload.subject, actor, role, data);
      }
      const kind = payload.kind === 'cluster-deleted' ? 'deleted' : 'agent-token-rotated';
      const data = { kind, org: payload.org, clusterId: payload.clusterId } as const;
      return new FeedEvent(id, 'cluster', payload.org, undefined, actor, role, data);
    }
    case CLUSTER_REGISTERED_EVENT: {
      if (!isClusterRegisteredEvent(payload)) return undefined;
      const actor = typeof payload.actor === 'string' ? payload.actor : '';
      const data = {
        kind: 'registered',
        org: payload.org,
        clusterId: payload.clusterId,
        ...(typeof payload.name === 'string' ? { name: payload.name } : {}),
      } as const;
      return new FeedEvent(id, 'cluster', payload.org, undefined, actor, recordedRole(actor, undefined, false), data);
    }
    case AGENT_PRESENCE_EVENT: {
      if (!isAgentPresenceEvent(payload)) return undefined;
      const data = {
        org: payload.org,
        clusterId: payload.clusterId,
        connected: payload.connected,
        since: stringOrNull(payload.since),
      };
      return new FeedEvent(id, 'agent', payload.org, undefined, undefined, null, data);
    }
    default:
      return undefined;
  }
}
