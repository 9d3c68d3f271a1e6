import { typeKey, type KubeObject } from '../api/registry.js';
import type { Controller, ControllerContext } from '../controllers/loop.js';
import { gameServers, markReady, statusOf } from './game-servers.js';

/** The longest delay one `setTimeout` takes; a later reservedUntil is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The SDK sidecar's reserve timer: SDK.Reserve(seconds > 0) ends with Ready() at reservedUntil. */
export function reservationExpiry(ctx: ControllerContext): Controller {
  const { api, timers } = ctx;
  /** The reservedUntil each Reserved server has a timer for, by namespace/name. */
  const reservations = new Map<string, string>();

  const arm = (gs: KubeObject): void => {
    const ns = gs.metadata.namespace as string;
    const name = gs.metadata.name as string;
    const key = `${ns}/${name}`;
    const until = statusOf(gs).reservedUntil;
    const at = until ? Date.parse(until) : Number.NaN;
    if (!until || Number.isNaN(at) || reservations.get(key) === until) return;
    reservations.set(key, until);
    timers.after(Math.min(Math.max(0, at - Date.now()), MAX_TIMER_MS), () => {
      if (reservations.get(key) !== until) return;
      reservations.delete(key);
      const current = api.store.get(typeKey(gameServers), ns, name);
      if (!current || current.metadata.deletionTimestamp) return;
      const status = statusOf(current);
      if (status.state !== 'Reserved' || status.reservedUntil !== until) return;
      if (Date.now() < at) {
        arm(current);
        return;
      }
      markReady(ctx, current, { reservedUntil: null });
    });
  };

  const onGameServer = (gs: KubeObject): void => {
    if (!gs.metadata.deletionTimestamp && statusOf(gs).state === 'Reserved') arm(gs);
  };

  return {
    watches: [typeKey(gameServers)],
    onEvent: (event) => {
      if (event.type !== 'DELETED') onGameServer(event.object);
    },
    // Reservations a data dir brought back run out.
    resume: () => {
      for (const gs of api.store.list(typeKey(gameServers))) onGameServer(gs);
    },
  };
}
