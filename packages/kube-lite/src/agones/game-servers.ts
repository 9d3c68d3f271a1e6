/** What the Agones controllers share: the GameServer shape, its labels, and its state changes. */
import type { KubeObject, OwnerReference } from '../api/registry.js';
import { describePod } from '../controllers/describe-pod.js';
import { typeOf, type ControllerContext } from '../controllers/loop.js';

export const FINALIZER = 'agones.dev';
export const FLEET_LABEL = 'agones.dev/fleet';
export const GSS_LABEL = 'agones.dev/gameserverset';
export const ROLE_LABEL = 'agones.dev/role';
export const GS_LABEL = 'agones.dev/gameserver';

export type GameServerState =
  'Creating' | 'Scheduled' | 'RequestReady' | 'Ready' | 'Allocated' | 'Reserved' | 'Shutdown' | 'Unhealthy' | 'Error';

export interface GameServerStatus {
  state?: GameServerState;
  address?: string;
  addresses?: { type: string; address: string }[];
  nodeName?: string;
  ports?: { name: string; port: number }[] | null;
  reservedUntil?: string | null;
  players?: PlayerStatus;
  [field: string]: unknown;
}

interface PlayerStatus {
  count: number;
  capacity: number;
  ids: string[] | null;
}

/** The pod template a GameServer or Fleet carries. */
export interface Template {
  metadata?: KubeObject['metadata'];
  spec?: Record<string, unknown>;
}

export const gameServers = typeOf('agones.dev', 'gameservers');
export const fleets = typeOf('agones.dev', 'fleets');
export const pods = typeOf('', 'pods');
export const namespaces = typeOf('', 'namespaces');

export const statusOf = (gs: KubeObject): GameServerStatus => (gs.status ?? {}) as GameServerStatus;

export function setState(
  { api }: ControllerContext,
  gs: KubeObject,
  state: GameServerState,
  extra: Partial<GameServerStatus> = {},
): KubeObject {
  return api.update(gameServers, gs.metadata.namespace, gs.metadata.name as string, {
    ...gs,
    status: { ...statusOf(gs), ...extra, state },
  });
}

/** The server's SDK.Ready(), as the game server in the pod would call it. */
export function markReady(ctx: ControllerContext, gs: KubeObject, extra: Partial<GameServerStatus> = {}): void {
  setState(ctx, gs, 'Ready', extra);
  const ns = gs.metadata.namespace as string;
  const name = gs.metadata.name as string;
  ctx.consoles
    .get({ namespace: ns, name, describe: () => describePod(ctx.api, ns, name) })
    .log('SDK: Ready() called, game server is Ready');
}

/** An ownerReference that makes `owner` the controller of what carries it. */
export function controlledBy(owner: KubeObject, kind: string): OwnerReference {
  return {
    apiVersion: 'agones.dev/v1',
    kind,
    name: owner.metadata.name as string,
    uid: owner.metadata.uid as string,
    controller: true,
    blockOwnerDeletion: true,
  };
}
