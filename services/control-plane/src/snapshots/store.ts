import type { CustomObjectsApi, KubernetesListObject, Watch } from '@kubernetes/client-node';
import type { FastifyBaseLogger } from 'fastify';
import { Conflict, NotFound, ServiceUnavailable, withRetryAfter } from '../errors.js';
import { CLUSTER_RETRY_AFTER_SECONDS } from '../kube/errors.js';
import { Informer, InformerStore, SETTLE_MS } from '../kube/informer.js';
import { SNAPSHOTS } from '../kube/volume-snapshots.js';
import type { VolumeSnapshot } from '../kube/volume-snapshots.js';
import { GAME_SERVER_LABEL, OWN_SNAPSHOTS, byName, isOwn, snapshotView } from './model.js';
import type { Snapshot } from './model.js';

const notLoaded = (): Error =>
  withRetryAfter(
    new ServiceUnavailable(
      'the snapshots have not been listed from Kubernetes yet ' +
        '(does the cluster serve snapshot.storage.k8s.io/v1 VolumeSnapshots?)',
    ),
    CLUSTER_RETRY_AFTER_SECONDS,
  );

/**
 * The control plane's VolumeSnapshots in every namespace (those labelled as its own), kept by
 * list + watch: reads never wait on the cluster, and retention reacts to the watch. Writes go to
 * Kubernetes and answer once this replica's cache shows them (at most 2 s).
 */
export class SnapshotStore extends InformerStore<VolumeSnapshot> {
  constructor(
    private readonly custom: CustomObjectsApi,
    watch: Watch,
    log: FastifyBaseLogger,
  ) {
    super(
      new Informer<VolumeSnapshot>(
        'VolumeSnapshots',
        `/apis/${SNAPSHOTS.group}/${SNAPSHOTS.version}/${SNAPSHOTS.plural}`,
        watch,
        async () =>
          (await custom.listClusterCustomObject({
            ...SNAPSHOTS,
            labelSelector: OWN_SNAPSHOTS,
          })) as KubernetesListObject<VolumeSnapshot>,
        log,
        OWN_SNAPSHOTS,
      ),
    );
  }

  /**
   * 503 until the first list (a cluster without the snapshot CRDs, say): without it, a snapshot
   * could be taken but never listed or pruned.
   */
  requireReady(): void {
    if (!this.ready) throw notLoaded();
  }

  private loaded(namespace?: string): readonly VolumeSnapshot[] {
    this.requireReady();
    return this.informer.list(namespace);
  }

  /** Snapshots of every namespace, or of one, by namespace and name. */
  list(namespace?: string): Snapshot[] {
    return this.loaded(namespace).map(snapshotView).sort(byName);
  }

  /** One snapshot made by the control plane, or undefined. */
  get(namespace: string, name: string): Snapshot | undefined {
    this.requireReady();
    const found = this.informer.get(namespace, name);
    return found === undefined ? undefined : snapshotView(found);
  }

  /** The snapshots of game server `namespace/gameServer`, by name. */
  ofGameServer(namespace: string, gameServer: string): Snapshot[] {
    return this.loaded(namespace)
      .filter((s) => s.metadata?.labels?.[GAME_SERVER_LABEL] === gameServer)
      .map(snapshotView)
      .sort(byName);
  }

  /** Creates `manifest`; its name taken is 409. */
  async create(manifest: VolumeSnapshot): Promise<VolumeSnapshot> {
    const namespace = manifest.metadata?.namespace ?? '';
    const name = manifest.metadata?.name ?? '';
    try {
      return (await this.custom.createNamespacedCustomObject({
        ...SNAPSHOTS,
        namespace,
        body: manifest,
      })) as VolumeSnapshot;
    } catch (err) {
      if (err instanceof Conflict)
        throw new Conflict(
          `snapshot ${namespace}/${name} already exists; give another name (a default name changes every second)`,
        );
      // The namespace exists (its game server does): the API does not serve VolumeSnapshots.
      if (err instanceof NotFound) throw notLoaded();
      throw err;
    }
  }

  /** `created` as the cache shows it once it does (so the caller's next list has it), at most 2 s later. */
  async settled(created: VolumeSnapshot): Promise<Snapshot> {
    const namespace = created.metadata?.namespace ?? '';
    const name = created.metadata?.name ?? '';
    const uid = created.metadata?.uid;
    await this.informer.waitFor(namespace, name, (s) => s?.metadata?.uid === uid, SETTLE_MS);
    const cached = this.informer.get(namespace, name);
    return snapshotView(cached !== undefined && cached.metadata?.uid === uid ? cached : created);
  }

  /**
   * Deletes snapshot `namespace/name`, read from the cluster first: one the control plane did not
   * make is not its to delete, so it is as unknown as a missing one (404).
   */
  async delete(namespace: string, name: string): Promise<void> {
    const missing = (): Error => new NotFound(`snapshot ${namespace}/${name} not found`);
    const current = (await this.custom
      .getNamespacedCustomObject({ ...SNAPSHOTS, namespace, name })
      .catch((err: unknown) => {
        throw err instanceof NotFound ? missing() : err;
      })) as VolumeSnapshot;
    if (!isOwn(current)) throw missing();
    const uid = current.metadata?.uid;
    await this.custom
      .deleteNamespacedCustomObject({ ...SNAPSHOTS, namespace, name, body: { preconditions: { uid } } })
      .catch((err: unknown) => {
        // Gone or replaced meanwhile: the snapshot that was asked about no longer exists.
        throw err instanceof NotFound || err instanceof Conflict ? missing() : err;
      });
    await this.informer.waitFor(
      namespace,
      name,
      (s) => s === undefined || s.metadata?.uid !== uid || s.metadata?.deletionTimestamp !== undefined,
      SETTLE_MS,
    );
  }
}
