import { Type } from 'typebox';
import type { Static } from 'typebox';
import { SNAPSHOTS, SNAPSHOT_KIND } from '../kube/volume-snapshots.js';
import type { VolumeSnapshot } from '../kube/volume-snapshots.js';
import { MANAGED_BY, MANAGED_BY_LABEL, PROFILE_LABEL } from '../profiles/store.js';

/** Names the game server whose storage a snapshot holds. */
export const GAME_SERVER_LABEL = 'gsp.dev/gameserver';
/**
 * When the control plane asked for the snapshot, to the millisecond: creation timestamps have
 * whole seconds, and retention must know which of two snapshots cut in one second is older.
 */
export const REQUESTED_AT_ANNOTATION = 'gsp.dev/requested-at';
/** The snapshots the control plane lists, watches and prunes: its own, never another tool's. */
export const OWN_SNAPSHOTS = `${MANAGED_BY_LABEL}=${MANAGED_BY},${GAME_SERVER_LABEL}`;

const MAX_NAME = 63;

export const SnapshotSchema = Type.Object(
  {
    namespace: Type.String(),
    name: Type.String(),
    gameServer: Type.String({
      description: 'The game server whose storage it holds (label gsp.dev/gameserver); it may since have been deleted.',
    }),
    profile: Type.Union([Type.String(), Type.Null()], {
      description: 'The profile of that game server when the snapshot was taken (label gsp.dev/profile).',
    }),
    readyToUse: Type.Boolean({ description: 'Cut by the snapshotter and usable for a restore.' }),
    restoreSize: Type.Union([Type.String(), Type.Null()], {
      description: 'The smallest volume it can be restored to, a Kubernetes quantity; null until it is cut.',
    }),
    createdAt: Type.String({ format: 'date-time', description: 'When it was asked for.' }),
    error: Type.Union([Type.String(), Type.Null()], {
      description: 'Why the snapshotter has not cut it (its status.error.message), null when nothing went wrong.',
    }),
  },
  { $id: 'Snapshot', additionalProperties: false },
);
export type Snapshot = Static<typeof SnapshotSchema>;

/** Made by the control plane for a game server: labelled as OWN_SNAPSHOTS selects. */
export function isOwn(snapshot: VolumeSnapshot): boolean {
  const labels = snapshot.metadata?.labels ?? {};
  return labels[MANAGED_BY_LABEL] === MANAGED_BY && labels[GAME_SERVER_LABEL] !== undefined;
}

export function isReady(snapshot: VolumeSnapshot): boolean {
  return snapshot.status?.readyToUse === true;
}

/** A timestamp as Kubernetes serialises it, or as client-node may have turned it into a Date. */
function iso(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' ? value : '';
}

function requestedAt(snapshot: VolumeSnapshot): string {
  const annotation = snapshot.metadata?.annotations?.[REQUESTED_AT_ANNOTATION];
  return annotation !== undefined && !Number.isNaN(Date.parse(annotation))
    ? annotation
    : iso(snapshot.metadata?.creationTimestamp);
}

/** When the snapshot was asked for, in milliseconds: what "oldest" means for retention. */
export function takenAt(snapshot: VolumeSnapshot): number {
  const ms = Date.parse(requestedAt(snapshot));
  return Number.isNaN(ms) ? 0 : ms;
}

/** Oldest first; snapshots asked for in the same millisecond by name. */
export function byAge(a: VolumeSnapshot, b: VolumeSnapshot): number {
  const [nameA, nameB] = [a.metadata?.name ?? '', b.metadata?.name ?? ''];
  return takenAt(a) - takenAt(b) || (nameA < nameB ? -1 : nameA > nameB ? 1 : 0);
}

/** By namespace, then name: the order lists are paged in. */
export function byName(a: Snapshot, b: Snapshot): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The documented shape of a snapshot, derived from the VolumeSnapshot (never a dump of it). */
export function snapshotView(snapshot: VolumeSnapshot): Snapshot {
  const labels = snapshot.metadata?.labels ?? {};
  const { status } = snapshot;
  return {
    namespace: snapshot.metadata?.namespace ?? '',
    name: snapshot.metadata?.name ?? '',
    gameServer: labels[GAME_SERVER_LABEL] ?? '',
    profile: labels[PROFILE_LABEL] ?? null,
    readyToUse: status?.readyToUse === true,
    restoreSize: typeof status?.restoreSize === 'string' ? status.restoreSize : null,
    createdAt: requestedAt(snapshot),
    error: status?.error?.message ?? null,
  };
}

/**
 * A snapshot's name when the caller gave none: the game server's and the UTC time to the second
 * (`arena-1-20250102030405`), at most 63 characters, so a list by name is a list by age.
 */
export function defaultSnapshotName(gameServer: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${gameServer.slice(0, MAX_NAME - stamp.length - 1)}-${stamp}`;
}

export interface SnapshotManifestOptions {
  namespace: string;
  name: string;
  gameServer: string;
  profile: string;
  /** The claim to snapshot: the game server's data claim. */
  claim: string;
  requestedAt: Date;
}

/** The VolumeSnapshot of a game server's storage, labelled so it is found, listed and pruned by game server. */
export function snapshotManifest(options: SnapshotManifestOptions): VolumeSnapshot {
  return {
    apiVersion: `${SNAPSHOTS.group}/${SNAPSHOTS.version}`,
    kind: SNAPSHOT_KIND,
    metadata: {
      name: options.name,
      namespace: options.namespace,
      labels: {
        [GAME_SERVER_LABEL]: options.gameServer,
        [PROFILE_LABEL]: options.profile,
        [MANAGED_BY_LABEL]: MANAGED_BY,
      },
      annotations: { [REQUESTED_AT_ANNOTATION]: options.requestedAt.toISOString() },
    },
    // No volumeSnapshotClassName: the cluster's default class for the claim's CSI driver applies.
    spec: { source: { persistentVolumeClaimName: options.claim } },
  };
}
