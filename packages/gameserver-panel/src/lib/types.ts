import type { components } from '../gen/control-plane';

/** A game server as the control plane answers it (the list, the feed and a server's page alike). */
export type GameServer = components['schemas']['GameServer'];

/** How the panel names a game server: `namespace/name` (the key of the list's map). */
export function serverKey(gs: Pick<GameServer, 'namespace' | 'name'>): string {
  return `${gs.namespace}/${gs.name}`;
}
