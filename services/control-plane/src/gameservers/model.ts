import { Type } from 'typebox';
import type { Static } from 'typebox';
import type { KubernetesObject } from '@kubernetes/client-node';
import { AGONES_STATES } from '../contract.js';
import { PROFILE_LABEL } from '../profiles/store.js';

export { PROFILE_LABEL };

export const AGONES = { group: 'agones.dev', version: 'v1' } as const;

/** The parts of an Agones GameServer the control plane reads. */
export interface AgonesGameServer extends KubernetesObject {
  spec?: {
    container?: string;
    ports?: { name?: string; containerPort?: number; protocol?: string }[];
    template?: { spec?: { containers?: { name?: string }[] } };
  };
  status?: {
    state?: string;
    address?: string;
    ports?: { name?: string; port?: number }[] | null;
    players?: { count?: number; capacity?: number } | null;
    reservedUntil?: string | null;
  };
}

export interface AgonesFleet extends KubernetesObject {
  spec?: { replicas?: number; template?: { metadata?: { labels?: Record<string, string> } } };
  status?: { replicas?: number; readyReplicas?: number; allocatedReplicas?: number; reservedReplicas?: number };
}

export const GameServerSchema = Type.Object(
  {
    namespace: Type.String(),
    name: Type.String(),
    profile: Type.Union([Type.String(), Type.Null()], {
      description: 'The profile it was created from (label gsp.dev/profile), null for one created otherwise.',
    }),
    state: Type.String({ description: `The Agones state: ${AGONES_STATES.join(', ')}.` }),
    address: Type.Union([Type.String(), Type.Null()], {
      description: 'Where players connect; null until the server is scheduled.',
    }),
    ports: Type.Array(Type.Object({ name: Type.String(), port: Type.Integer(), protocol: Type.String() })),
    labels: Type.Record(Type.String(), Type.String()),
    players: Type.Union([Type.Object({ count: Type.Integer(), capacity: Type.Integer() }), Type.Null()], {
      description: "Agones player tracking, null when the server's profile sets no player capacity.",
    }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'GameServer', additionalProperties: false },
);
export type GameServer = Static<typeof GameServerSchema>;

export const FleetSchema = Type.Object(
  {
    namespace: Type.String(),
    name: Type.String(),
    replicas: Type.Integer({ description: 'Desired game servers (spec.replicas).' }),
    readyReplicas: Type.Integer(),
    allocatedReplicas: Type.Integer(),
    reservedReplicas: Type.Integer(),
    profile: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'Fleet', additionalProperties: false },
);
export type Fleet = Static<typeof FleetSchema>;

function timestamp(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' ? value : '';
}

export function stateOf(gs: AgonesGameServer): string {
  return gs.status?.state ?? 'Creating';
}

/** The documented shape of a game server, derived from the Agones object (never a dump of it). */
export function gameServerView(gs: AgonesGameServer): GameServer {
  const protocols = new Map((gs.spec?.ports ?? []).map((p) => [p.name ?? 'default', p.protocol ?? 'UDP']));
  const players = gs.status?.players;
  return {
    namespace: gs.metadata?.namespace ?? '',
    name: gs.metadata?.name ?? '',
    profile: gs.metadata?.labels?.[PROFILE_LABEL] ?? null,
    state: stateOf(gs),
    address: gs.status?.address || null,
    ports: (gs.status?.ports ?? []).map((p) => ({
      name: p.name ?? 'default',
      port: p.port ?? 0,
      protocol: protocols.get(p.name ?? 'default') ?? 'UDP',
    })),
    labels: gs.metadata?.labels ?? {},
    players: players ? { count: players.count ?? 0, capacity: players.capacity ?? 0 } : null,
    createdAt: timestamp(gs.metadata?.creationTimestamp),
  };
}

export function fleetView(fleet: AgonesFleet): Fleet {
  return {
    namespace: fleet.metadata?.namespace ?? '',
    name: fleet.metadata?.name ?? '',
    replicas: fleet.spec?.replicas ?? 0,
    readyReplicas: fleet.status?.readyReplicas ?? 0,
    allocatedReplicas: fleet.status?.allocatedReplicas ?? 0,
    reservedReplicas: fleet.status?.reservedReplicas ?? 0,
    profile: fleet.metadata?.labels?.[PROFILE_LABEL] ?? fleet.spec?.template?.metadata?.labels?.[PROFILE_LABEL] ?? null,
  };
}

/** The container commands run in: Agones' `spec.container`, else the only (first) container. */
export function containerOf(gs: AgonesGameServer): string {
  return gs.spec?.container ?? gs.spec?.template?.spec?.containers?.[0]?.name ?? 'gameserver';
}
