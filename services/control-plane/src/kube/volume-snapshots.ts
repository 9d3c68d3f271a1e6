import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * CSI snapshots, as the external-snapshotter's CRDs serve them: what the snapshot routes take and
 * list, and what a game server's data claim is restored from (its `dataSource`).
 */
export const SNAPSHOTS = { group: 'snapshot.storage.k8s.io', version: 'v1', plural: 'volumesnapshots' } as const;
export const SNAPSHOT_KIND = 'VolumeSnapshot';

/** The parts of a `snapshot.storage.k8s.io/v1` VolumeSnapshot the control plane writes and reads. */
export interface VolumeSnapshot extends KubernetesObject {
  spec?: {
    source?: { persistentVolumeClaimName?: string; volumeSnapshotContentName?: string };
    volumeSnapshotClassName?: string;
  };
  status?: {
    readyToUse?: boolean;
    restoreSize?: string;
    creationTime?: string;
    error?: { message?: string; time?: string } | null;
  } | null;
}
