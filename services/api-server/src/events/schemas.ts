import { Type } from 'typebox';
import type { Static } from 'typebox';

const TenantRole = Type.Union([Type.Literal('admin'), Type.Literal('operator'), Type.Literal('viewer')], {
  description: 'admin, operator or viewer',
});

export const MeResponse = Type.Object({
  subject: Type.String({ description: "the caller's subject, as role bindings and audit rows name it" }),
  platformAdmin: Type.Boolean({ description: 'holds the platform admin role (every permission)' }),
  tenants: Type.Array(Type.Object({ org: Type.String(), role: TenantRole }), {
    description: 'the tenants the caller is a member of, and its role in each, by org',
  }),
});
export type MeResponse = Static<typeof MeResponse>;

const Actor = Type.Union([Type.String(), Type.Null()], {
  description:
    'who did it; null when shown to a tenant member and done by a platform admin ' +
    '(`actorRole` then says `platform-admin`), or when its role could not be told',
});
const ActorRole = Type.Union([Type.String(), Type.Null()], {
  description: '`platform-admin`, a tenant role, or `system` (an expiry); null when unknown',
});
const Timestamp = Type.Union([Type.String({ description: 'RFC 3339' }), Type.Null()]);

export const FlagEventData = Type.Object(
  {
    flag: Type.String(),
    scope: Type.Union([
      Type.Object({ type: Type.Literal('platform') }),
      Type.Object({ type: Type.Literal('cluster'), org: Type.String(), clusterId: Type.String() }),
    ]),
    value: Type.Union([Type.Boolean(), Type.Null()], { description: 'null: the stored value was cleared' }),
    actor: Actor,
    actorRole: ActorRole,
    setAt: Timestamp,
    reason: Type.Union([Type.String(), Type.Null()]),
    expiresAt: Timestamp,
    cause: Type.Union([Type.Literal('request'), Type.Literal('expiry')], {
      description: '`expiry`: cleared because `expiresAt` passed (actor `system:expiry`)',
    }),
  },
  { description: '`event: flag`: a flag value was set or cleared' },
);
export type FlagEventData = Static<typeof FlagEventData>;

export const MemberEventData = Type.Object(
  {
    org: Type.String(),
    subject: Type.String(),
    role: Type.Union([TenantRole, Type.Null()], { description: 'the role now; null: removed' }),
    actor: Actor,
    actorRole: ActorRole,
  },
  { description: "`event: member`: a member's role was set or removed" },
);
export type MemberEventData = Static<typeof MemberEventData>;

export const ClusterEventData = Type.Object(
  {
    kind: Type.Union([Type.Literal('registered'), Type.Literal('deleted'), Type.Literal('agent-token-rotated')]),
    org: Type.String(),
    clusterId: Type.String(),
    name: Type.Optional(Type.String({ description: 'registered only' })),
    actor: Actor,
    actorRole: ActorRole,
  },
  { description: '`event: cluster`: a cluster was registered or deleted, or its agent token rotated' },
);
export type ClusterEventData = Static<typeof ClusterEventData>;

export const AgentEventData = Type.Object(
  {
    org: Type.String(),
    clusterId: Type.String(),
    connected: Type.Boolean(),
    since: Type.Union([Type.String({ description: 'RFC 3339' }), Type.Null()], {
      description: 'connected since (the oldest live tunnel); null when disconnected',
    }),
  },
  { description: "`event: agent`: a cluster's agent connected or disconnected" },
);
export type AgentEventData = Static<typeof AgentEventData>;

export const RELOAD_REASONS = ['gap', 'replay-limit', 'slow-reader', 'resync'] as const;
export type ReloadReason = (typeof RELOAD_REASONS)[number];

export const CLOSE_REASONS = ['token-expired', 'access-changed', 'signed-out', 'shutdown'] as const;
export type CloseReason = (typeof CLOSE_REASONS)[number];

export const EventsQuery = Type.Object({
  lastEventId: Type.Optional(
    Type.String({
      description: 'for clients that cannot set headers: resume after this event id (`Last-Event-ID` wins)',
    }),
  ),
});

export const EventsHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({ description: 'resume after this event id: the `id` of the last event received' }),
  ),
});
