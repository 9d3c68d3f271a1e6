import { Conflict, NotFound } from '../errors.js';
import { SETTLE_MS } from '../kube/informer.js';
import type { Informer } from '../kube/informer.js';
import type { GameServerClient } from './client.js';
import { stateOf } from './model.js';
import type { AgonesGameServer } from './model.js';

/** How many times a delete reads again when the server changed between its read and its delete. */
const DELETE_ATTEMPTS = 5;

/**
 * Deletes game server `namespace/name`: read from the cluster, not the cache, since the
 * Allocated check guards players (409 without `force`), and deleted on the condition that it is
 * still what was read (with `force`, still the same object, whatever its state). A server that
 * changed in between (Agones moves a new one through its states several times a second) is read
 * and checked again, a few times, before the change is the caller's to look at. Returns once the
 * cache shows it gone or going (at most SETTLE_MS).
 */
export async function deleteGameServer(
  servers: GameServerClient,
  gameServers: Informer<AgonesGameServer>,
  { namespace, name, force }: { namespace: string; name: string; force: boolean },
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const gs = await servers.get(namespace, name).catch((err: unknown) => {
      throw err instanceof NotFound ? new NotFound(`game server ${namespace}/${name} not found`) : err;
    });
    if (stateOf(gs) === 'Allocated' && !force) {
      throw new Conflict(
        `game server ${namespace}/${name} is Allocated: players are on it. ` +
          'Delete it with ?force=true (Agones itself never removes an Allocated server)',
      );
    }
    // Preconditions: a server allocated since it was read is not deleted without force.
    const { uid, resourceVersion } = gs.metadata ?? {};
    const deleted = await servers.delete(namespace, name, force ? { uid } : { uid, resourceVersion }).then(
      () => true,
      (err: unknown) => {
        if (!(err instanceof Conflict)) throw err;
        if (attempt < DELETE_ATTEMPTS) return false;
        throw new Conflict(
          `game server ${namespace}/${name} changed while being deleted; check its state and try again`,
        );
      },
    );
    if (deleted) break;
  }
  await gameServers.waitFor(
    namespace,
    name,
    (o) => o === undefined || o.metadata?.deletionTimestamp !== undefined,
    SETTLE_MS,
  );
}
