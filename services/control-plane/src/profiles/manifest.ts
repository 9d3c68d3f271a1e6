import { randomInt } from 'node:crypto';
import type { V1Container, V1PersistentVolumeClaim, V1Volume } from '@kubernetes/client-node';
import { isDnsSubdomain } from '@gsp/platform-contract';
import { SNAPSHOTS, SNAPSHOT_KIND } from '../kube/volume-snapshots.js';
import { pointerSegment } from './schema.js';
import type { ProfileError } from './schema.js';
import { MANAGED_BY, MANAGED_BY_LABEL, PROFILE_LABEL } from './store.js';
import type { Profile } from './types.js';

/** The container Agones is told is the game server (`spec.container`). */
export const GAME_SERVER_CONTAINER = 'gameserver';
/** The volume holding a game server's persistent storage. */
const DATA_VOLUME = 'data';

/** An Agones `agones.dev/v1` GameServer as the control plane creates it. */
export interface GameServerManifest {
  apiVersion: 'agones.dev/v1';
  kind: 'GameServer';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: {
    container: string;
    ports: { name: string; portPolicy: 'Dynamic'; containerPort: number; protocol: 'UDP' | 'TCP' | 'TCPUDP' }[];
    health?: NonNullable<Profile['health']>;
    players?: NonNullable<Profile['players']>;
    template: { spec: { containers: V1Container[]; volumes?: V1Volume[] } };
  };
}

export interface GameServerManifestOptions {
  namespace: string;
  /** The game server's name; `generateName(profile.name)` when the user gave none. */
  name: string;
  /** The user's labels, checked with `checkUserLabels`. */
  labels?: Record<string, string>;
  /** Added to the profile's environment, replacing variables of the same name. */
  env?: Record<string, string>;
  /** A VolumeSnapshot in `namespace` the storage is restored from (checked with `restoreSource`). */
  fromSnapshot?: string;
}

export interface GameServerManifests {
  gameServer: GameServerManifest;
  /**
   * With storage: the claim to create once the GameServer exists, owned by it (its `uid`), so
   * that deleting the game server deletes its storage too.
   */
  claim?: (gameServerUid: string) => V1PersistentVolumeClaim;
}

/** The claim holding game server `name`'s storage. */
export function claimName(name: string): string {
  return `${name}-${DATA_VOLUME}`;
}

/** What a game server made from `profile` is: the GameServer, and the claim of its storage if it has any. */
export function gameServerManifest(profile: Profile, options: GameServerManifestOptions): GameServerManifests {
  const { namespace, name } = options;
  // Copies throughout: `profile` is the store's own, and the caller may change what it gets.
  // Ours last: a game server always says which profile made it, and who manages it.
  const labels = { ...options.labels, [PROFILE_LABEL]: profile.name, [MANAGED_BY_LABEL]: MANAGED_BY };
  const env = Object.entries({ ...profile.env, ...options.env }).map(([envName, value]) => ({ name: envName, value }));
  const { storage } = profile;
  const container: V1Container = {
    name: GAME_SERVER_CONTAINER,
    image: profile.image,
    env,
    ...(profile.resources ? { resources: structuredClone(profile.resources) } : {}),
    ...(storage ? { volumeMounts: [{ name: DATA_VOLUME, mountPath: storage.mountPath }] } : {}),
  };
  const gameServer: GameServerManifest = {
    apiVersion: 'agones.dev/v1',
    kind: 'GameServer',
    metadata: { name, namespace, labels },
    spec: {
      container: GAME_SERVER_CONTAINER,
      ports: profile.ports.map((port) => ({
        name: port.name,
        portPolicy: 'Dynamic',
        containerPort: port.containerPort,
        protocol: port.protocol,
      })),
      ...(profile.health ? { health: { ...profile.health } } : {}),
      ...(profile.players ? { players: { ...profile.players } } : {}),
      template: {
        spec: {
          containers: [container],
          ...(storage
            ? { volumes: [{ name: DATA_VOLUME, persistentVolumeClaim: { claimName: claimName(name) } }] }
            : {}),
        },
      },
    },
  };
  if (storage === undefined) return { gameServer };
  const claim = (gameServerUid: string): V1PersistentVolumeClaim => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: claimName(name),
      namespace,
      labels: { ...labels },
      ownerReferences: [
        {
          apiVersion: 'agones.dev/v1',
          kind: 'GameServer',
          name,
          uid: gameServerUid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: storage.size } },
      ...(storage.storageClassName ? { storageClassName: storage.storageClassName } : {}),
      // The CSI provisioner fills the new volume from the snapshot.
      ...(options.fromSnapshot
        ? { dataSource: { apiGroup: SNAPSHOTS.group, kind: SNAPSHOT_KIND, name: options.fromSnapshot } }
        : {}),
    },
  });
  return { gameServer, claim };
}

const SUFFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const SUFFIX_LENGTH = 5;
const MAX_NAME = 63;

/** A name for a game server of profile `profileName`: `<profile>-<5 random [a-z0-9]>`, at most 63 characters. */
export function generateName(profileName: string): string {
  let suffix = '';
  for (let i = 0; i < SUFFIX_LENGTH; i++) suffix += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
  return `${profileName.slice(0, MAX_NAME - SUFFIX_LENGTH - 1)}-${suffix}`;
}

const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
export const MAX_USER_LABELS = 64;

/**
 * Prefixes the user may not set: the control plane's own, and Agones', whose controllers select
 * game servers by them (a stray `agones.dev/gameserverset` would hand the server to a fleet).
 */
const RESERVED_PREFIXES = ['gsp.dev', 'agones.dev'];

/** Why `key` cannot be a label key, or undefined when it can. */
function labelKeyError(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined && !isDnsSubdomain(prefix)) {
    return 'must have a DNS-1123 subdomain as its prefix (before "/"), at most 253 characters';
  }
  if (name.length > 63 || !LABEL_NAME.test(name)) {
    const rule =
      'at most 63 letters, digits, "-", "_" and ".", starting and ending with a letter or digit, ' +
      'after an optional prefix/';
    return `must be a Kubernetes label key: ${rule}`;
  }
  if (prefix !== undefined && RESERVED_PREFIXES.some((r) => prefix === r || prefix.endsWith(`.${r}`))) {
    return `is reserved: labels with the prefix ${prefix}/ are set by the platform`;
  }
  if (key === MANAGED_BY_LABEL) return `is reserved: the control plane sets it to ${MANAGED_BY}`;
  return undefined;
}

/**
 * What is wrong with the labels a user asks a game server to have, each error pointing at its
 * label under `at` (the labels' own pointer in the request). Empty when they are fine.
 */
export function checkUserLabels(labels: Record<string, string>, at = '/labels'): ProfileError[] {
  const errors: ProfileError[] = [];
  const keys = Object.keys(labels);
  if (keys.length > MAX_USER_LABELS)
    errors.push({ pointer: at, message: `at most ${MAX_USER_LABELS} labels may be given` });
  for (const key of keys) {
    const pointer = `${at}/${pointerSegment(key)}`;
    const keyError = labelKeyError(key);
    if (keyError !== undefined) errors.push({ pointer, message: `label ${JSON.stringify(key)} ${keyError}` });
    const value = labels[key];
    if (typeof value !== 'string' || value.length > 63 || !(value === '' || LABEL_NAME.test(value))) {
      const rule = 'empty, or at most 63 letters, digits, "-", "_" and ".", starting and ending with a letter or digit';
      errors.push({
        pointer,
        message: `the value of label ${JSON.stringify(key)} must be a Kubernetes label value: ${rule}`,
      });
    }
  }
  return errors;
}
