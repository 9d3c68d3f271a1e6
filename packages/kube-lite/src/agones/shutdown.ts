import { storedAsAdded, type Controller, type ControllerContext } from '../controllers/loop.js';
import { typeKey } from '../api/registry.js';
import type { StoreEvent } from '../api/store.js';
import { FINALIZER, gameServers, setState, statusOf } from './game-servers.js';

/**
 * A GameServer's end: a deleted one passes Shutdown before its finalizer goes, and one set to
 * Shutdown (SDK.Shutdown()) is deleted, leaving by the same path.
 */
export function gameServerShutdown(ctx: ControllerContext): Controller {
  const { api, timers, stepMs } = ctx;

  const onEvent = (event: StoreEvent): void => {
    if (event.type === 'DELETED') return;
    const gs = event.object;
    const ns = gs.metadata.namespace as string;
    const name = gs.metadata.name as string;
    if (gs.metadata.deletionTimestamp) {
      if (statusOf(gs).state !== 'Shutdown') {
        timers.after(0, () => {
          const current = api.get(gameServers, ns, name);
          if (statusOf(current).state !== 'Shutdown') setState(ctx, current, 'Shutdown');
        });
      } else {
        timers.after(stepMs, () => {
          const current = api.get(gameServers, ns, name);
          const finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== FINALIZER);
          api.update(gameServers, ns, name, { ...current, metadata: { ...current.metadata, finalizers } });
        });
      }
    } else if (statusOf(gs).state === 'Shutdown') {
      timers.after(0, () => {
        const current = api.get(gameServers, ns, name);
        if (statusOf(current).state === 'Shutdown' && !current.metadata.deletionTimestamp)
          api.delete(gameServers, ns, name);
      });
    }
  };

  return {
    watches: [typeKey(gameServers)],
    onEvent,
    // Servers a data dir brought back deleting or Shutdown go.
    resume: () => {
      for (const event of storedAsAdded(api, typeKey(gameServers))) onEvent(event);
    },
  };
}
