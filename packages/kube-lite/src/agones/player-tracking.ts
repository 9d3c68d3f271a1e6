import type { PlayerTracking } from '../container/console.js';
import type { ControllerContext } from '../controllers/loop.js';
import { typeKey } from '../api/registry.js';
import { gameServers, statusOf } from './game-servers.js';

/**
 * The sidecar's PlayerConnect/PlayerDisconnect: status.players follows the console's players.
 * Returns the function that uninstalls it.
 */
export function installPlayerTracking({ api, consoles, timers }: ControllerContext): () => void {
  const playerTracking: PlayerTracking = {
    capacity: ({ namespace, name }) => {
      const gs = api.store.get(typeKey(gameServers), namespace, name);
      return gs ? statusOf(gs).players?.capacity : undefined;
    },
    changed: ({ namespace, name }, ids) => {
      timers.after(0, () => {
        const gs = api.store.get(typeKey(gameServers), namespace, name);
        const players = gs && statusOf(gs).players;
        if (!gs || !players || gs.metadata.deletionTimestamp) return;
        api.update(gameServers, namespace, name, {
          ...gs,
          status: { ...statusOf(gs), players: { ...players, count: ids.length, ids } },
        });
      });
    },
  };
  consoles.playerTracking = playerTracking;
  return () => {
    if (consoles.playerTracking === playerTracking) consoles.playerTracking = undefined;
  };
}
