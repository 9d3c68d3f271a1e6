/**
 * The control plane's documented shapes, as the panel reads them. GameServer mirrors
 * services/control-plane/src/gameservers/model.ts GameServerSchema (the list, the feed and a
 * server's page all answer it).
 */
export interface GameServer {
  namespace: string;
  name: string;
  /** The profile it was created from (label gsp.dev/profile), null for one created otherwise. */
  profile: string | null;
  /** The Agones state: one of STATES, as a string (a newer Agones may add one). */
  state: string;
  /** Where players connect; null until the server is scheduled. */
  address: string | null;
  ports: { name: string; port: number; protocol: string }[];
  labels: Record<string, string>;
  /** Agones player tracking, null when the server's profile sets no player capacity. */
  players: { count: number; capacity: number } | null;
  createdAt: string;
}

/** The Agones game-server states, in lifecycle order. */
export const STATES = [
  'Creating',
  'Scheduled',
  'RequestReady',
  'Ready',
  'Reserved',
  'Allocated',
  'Shutdown',
  'Unhealthy',
  'Error',
] as const;

/** How the panel names a game server: `namespace/name` (the key of the list's map). */
export function serverKey(gs: Pick<GameServer, 'namespace' | 'name'>): string {
  return `${gs.namespace}/${gs.name}`;
}
