/** The storage the cluster simulates: a volume provisioner and a CSI snapshotter. */
import { nowTimestamp } from '../api/api.js';
import { typeKey, type KubeObject } from '../api/registry.js';
import { runSafely, typeOf, type Controller, type ControllerContext } from './loop.js';

const SNAPSHOTS = 'snapshot.storage.k8s.io/volumesnapshots';

/**
 * A provisioner that binds every claim at once to a volume of the requested size; one restored
 * from a VolumeSnapshot (its dataSourceRef) stays Pending until that snapshot is ready to use,
 * as the CSI external-provisioner retries until then.
 */
export function volumeProvisioner({ api, timers, stepMs }: ControllerContext): Controller {
  const claims = typeOf('', 'persistentvolumeclaims');
  const snapshots = typeOf('snapshot.storage.k8s.io', 'volumesnapshots');

  const bindClaim = (claim: KubeObject): void => {
    const ns = claim.metadata.namespace as string;
    const name = claim.metadata.name as string;
    const current = api.get(claims, ns, name);
    const spec = (current.spec ?? {}) as {
      accessModes?: string[];
      resources?: { requests?: { storage?: string } };
      volumeName?: string;
    };
    if (spec.volumeName) return;
    const snapshot = snapshotSourceOf(current);
    if (snapshot !== undefined && !isReady(api.store.get(typeKey(snapshots), ns, snapshot))) return;
    const bound = api.update(claims, ns, name, {
      ...current,
      spec: { ...spec, volumeName: `pvc-${current.metadata.uid}` },
    });
    api.update(
      claims,
      ns,
      name,
      {
        ...bound,
        status: {
          phase: 'Bound',
          accessModes: spec.accessModes ?? ['ReadWriteOnce'],
          capacity: { storage: spec.resources?.requests?.storage ?? '1Gi' },
        },
      },
      { subresource: 'status' },
    );
  };

  /** Binds the claims waiting for `snapshot`, now ready, to restore from it. */
  const restoreFrom = (snapshot: KubeObject): void => {
    const ns = snapshot.metadata.namespace as string;
    for (const claim of api.store.list('/persistentvolumeclaims', ns)) {
      if (snapshotSourceOf(claim) === snapshot.metadata.name) runSafely(() => bindClaim(claim));
    }
  };

  return {
    watches: ['/persistentvolumeclaims', SNAPSHOTS],
    onEvent: (event) => {
      const obj = event.object;
      if (event.typeKey === '/persistentvolumeclaims' && event.type === 'ADDED')
        timers.after(stepMs, () => bindClaim(obj));
      if (event.typeKey === SNAPSHOTS && event.type !== 'DELETED' && isReady(obj))
        timers.after(stepMs, () => restoreFrom(obj));
    },
    resume: () => {
      for (const claim of api.store.list('/persistentvolumeclaims')) bindClaim(claim);
    },
  };
}

/** A CSI snapshotter that cuts every snapshot at once, or reports the missing source claim. */
export function volumeSnapshotter({ api, timers, stepMs }: ControllerContext): Controller {
  const snapshots = typeOf('snapshot.storage.k8s.io', 'volumesnapshots');

  const takeSnapshot = (snapshot: KubeObject): void => {
    const ns = snapshot.metadata.namespace as string;
    const name = snapshot.metadata.name as string;
    const current = api.get(snapshots, ns, name);
    const source = (current.spec as { source?: { persistentVolumeClaimName?: string } } | undefined)?.source
      ?.persistentVolumeClaimName;
    const claim = source ? api.store.get('/persistentvolumeclaims', ns, source) : undefined;
    const now = nowTimestamp();
    const status = claim
      ? {
          readyToUse: true,
          creationTime: now,
          restoreSize: (claim.status as { capacity?: { storage?: string } } | undefined)?.capacity?.storage ?? '1Gi',
          boundVolumeSnapshotContentName: `snapcontent-${current.metadata.uid}`,
        }
      : {
          readyToUse: false,
          error: {
            time: now,
            message:
              `failed to get input parameters to create snapshot ${name}: ` +
              `"persistentvolumeclaims "${source ?? ''}" not found"`,
          },
        };
    api.update(snapshots, ns, name, { ...current, status }, { subresource: 'status' });
  };

  return {
    watches: [SNAPSHOTS],
    onEvent: (event) => {
      if (event.type === 'ADDED') timers.after(stepMs, () => takeSnapshot(event.object));
    },
    resume: () => {
      for (const snapshot of api.store.list(SNAPSHOTS)) {
        const status = (snapshot.status ?? {}) as { readyToUse?: boolean; error?: unknown };
        if (!status.readyToUse && !status.error) takeSnapshot(snapshot);
      }
    },
  };
}

function isReady(snapshot: KubeObject | undefined): boolean {
  return (snapshot?.status as { readyToUse?: boolean } | undefined)?.readyToUse === true;
}

/** The VolumeSnapshot a claim is restored from, if it is restored from one. */
function snapshotSourceOf(claim: KubeObject): string | undefined {
  const ref = (claim.spec as { dataSourceRef?: { apiGroup?: string; kind?: string; name?: string } } | undefined)
    ?.dataSourceRef;
  return ref?.apiGroup === 'snapshot.storage.k8s.io' && ref.kind === 'VolumeSnapshot' ? ref.name : undefined;
}
