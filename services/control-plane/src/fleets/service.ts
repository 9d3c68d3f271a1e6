import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { CustomObjectsApi } from '@kubernetes/client-node';
import { NotFound } from '../errors.js';
import { SETTLE_MS } from '../kube/informer.js';
import type { Informer } from '../kube/informer.js';
import { AGONES, fleetView } from '../gameservers/model.js';
import type { AgonesFleet, Fleet } from '../gameservers/model.js';

/** A bound against typos (10000 for 100): each replica is a pod. */
export const MAX_REPLICAS = 10_000;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Agones fleets: read from this replica's cache (503 until the first list), scaled on the Kubernetes API. */
export class FleetService {
  constructor(
    private readonly custom: CustomObjectsApi,
    private readonly fleets: Informer<AgonesFleet>,
  ) {}

  /** The fleets of one namespace, or of all, by namespace and name. */
  list(namespace?: string): Fleet[] {
    this.fleets.requireReady();
    return this.fleets
      .list(namespace)
      .map(fleetView)
      .sort((a, b) =>
        a.namespace === b.namespace ? a.name.localeCompare(b.name) : a.namespace < b.namespace ? -1 : 1,
      );
  }

  get(namespace: string, name: string): Fleet {
    this.fleets.requireReady();
    const fleet = this.fleets.get(namespace, name);
    if (fleet === undefined) throw new NotFound(`fleet ${namespace}/${name} not found`);
    return fleetView(fleet);
  }

  /**
   * Sets fleet `namespace/name` to `replicas` through the scale subresource, as `kubectl scale`
   * does (RBAC can grant it alone), and answers once the cache shows it (at most SETTLE_MS).
   */
  async scale(namespace: string, name: string, replicas: number): Promise<Fleet> {
    await this.custom
      .patchNamespacedCustomObjectScale(
        { ...AGONES, namespace, plural: 'fleets', name, body: { spec: { replicas } } },
        mergePatch,
      )
      .catch((err: unknown) => {
        throw err instanceof NotFound ? new NotFound(`fleet ${namespace}/${name} not found`) : err;
      });
    const { fleets } = this;
    await fleets.waitFor(namespace, name, (f) => f === undefined || f.spec?.replicas === replicas, SETTLE_MS);
    const view = fleetView(fleets.get(namespace, name) ?? { metadata: { namespace, name } });
    return { ...view, replicas };
  }
}
