/**
 * A simulated Agones controller: GameServers go Creating -> Scheduled -> Ready with an address
 * and host ports and get a pod of the same name; Fleets keep `spec.replicas` GameServers;
 * GameServerAllocations mark a matching Ready server Allocated; deletion passes Shutdown, and a
 * server set to Shutdown is deleted. What the SDK sidecar does is simulated too: a Reserved
 * server returns to Ready at `status.reservedUntil`, and the console's players are reported in
 * `status.players` (player tracking).
 */
import { runControllers, type ControllerContext } from '../controllers/loop.js';
import { allocate } from './allocation.js';
import { fleetScaling } from './fleets.js';
import { gameServerLifecycle } from './lifecycle.js';
import { installPlayerTracking } from './player-tracking.js';
import { reservationExpiry } from './reservations.js';
import { gameServerShutdown } from './shutdown.js';

export interface Agones {
  allocate: (namespace: string, body: unknown) => Promise<object>;
  stop: () => void;
}

export function startAgones(ctx: ControllerContext): Agones {
  const uninstallPlayerTracking = installPlayerTracking(ctx);
  // Each event reaches them in this order: a server's fleet is queued before the server's own work.
  const stopControllers = runControllers(ctx, [
    fleetScaling(ctx),
    gameServerLifecycle(ctx),
    gameServerShutdown(ctx),
    reservationExpiry(ctx),
  ]);
  return {
    allocate: async (namespace, body) => allocate(ctx.api, namespace, body),
    stop: () => {
      stopControllers();
      uninstallPlayerTracking();
    },
  };
}
