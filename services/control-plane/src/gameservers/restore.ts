import type { CustomObjectsApi } from '@kubernetes/client-node';
import { Conflict, NotFound, Unprocessable } from '../errors.js';
import { quantityAmount } from '../profiles/schema.js';
import type { Profile } from '../profiles/types.js';
import { SNAPSHOTS } from '../kube/volume-snapshots.js';
import type { VolumeSnapshot } from '../kube/volume-snapshots.js';

/**
 * Checks that a game server of `profile` can be restored from snapshot `namespace/name`, read
 * from the cluster (a restore must not trust a cache about readiness): it must exist (else 422),
 * be ready to use (else 409), and fit the profile's storage (else 409: the provisioner would never
 * bind a claim smaller than the snapshot). A profile without storage has nothing to restore into.
 */
export async function checkRestorable(
  custom: CustomObjectsApi,
  namespace: string,
  name: string,
  profile: Profile,
): Promise<void> {
  if (profile.storage === undefined)
    throw new Conflict(
      `profile ${profile.name} has no storage: there is nothing to restore snapshot ${namespace}/${name} into`,
    );
  const snapshot = (await custom.getNamespacedCustomObject({ ...SNAPSHOTS, namespace, name }).catch((err: unknown) => {
    throw err instanceof NotFound ? new Unprocessable(`unknown snapshot ${namespace}/${name}`) : err;
  })) as VolumeSnapshot;
  if (snapshot.status?.readyToUse !== true) {
    const why = snapshot.status?.error?.message;
    const detail = why ? `: ${why}` : ' yet; try again once it is (readyToUse)';
    throw new Conflict(`snapshot ${namespace}/${name} is not ready to use${detail}`);
  }
  const needed = snapshot.status.restoreSize;
  if (typeof needed === 'string' && quantityAmount(needed) > quantityAmount(profile.storage.size)) {
    throw new Conflict(
      `snapshot ${namespace}/${name} needs a volume of at least ${needed}; ` +
        `profile ${profile.name}'s storage is ${profile.storage.size}`,
    );
  }
}
