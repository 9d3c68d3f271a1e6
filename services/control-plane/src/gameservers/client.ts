import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { CustomObjectsApi, KubernetesListObject } from '@kubernetes/client-node';
import { AGONES } from './model.js';
import type { AgonesGameServer } from './model.js';

const GAME_SERVERS = { ...AGONES, plural: 'gameservers' } as const;
const ALLOCATIONS = { group: 'allocation.agones.dev', version: 'v1', plural: 'gameserverallocations' } as const;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Preconditions of a delete: it fails with 409 when the object is no longer the one that was read. */
export interface DeletePreconditions {
  uid?: string;
  resourceVersion?: string;
}

/**
 * The Agones GameServer calls the control plane makes, on the Kubernetes API (reads of the cache
 * go to the informer instead). Every call is bounded and its errors translated by kube/client.ts.
 */
export class GameServerClient {
  constructor(private readonly custom: CustomObjectsApi) {}

  /** Game server `namespace/name` as the cluster has it now. */
  async get(namespace: string, name: string): Promise<AgonesGameServer> {
    return (await this.custom.getNamespacedCustomObject({ ...GAME_SERVERS, namespace, name })) as AgonesGameServer;
  }

  /** Every game server of every namespace. */
  async list(): Promise<KubernetesListObject<AgonesGameServer>> {
    return (await this.custom.listClusterCustomObject({ ...GAME_SERVERS })) as KubernetesListObject<AgonesGameServer>;
  }

  async create(namespace: string, body: object): Promise<AgonesGameServer> {
    return (await this.custom.createNamespacedCustomObject({ ...GAME_SERVERS, namespace, body })) as AgonesGameServer;
  }

  /** A JSON merge patch; a `metadata.resourceVersion` in `body` makes it conditional (409 when stale). */
  async patch(namespace: string, name: string, body: object): Promise<AgonesGameServer> {
    return (await this.custom.patchNamespacedCustomObject(
      { ...GAME_SERVERS, namespace, name, body },
      mergePatch,
    )) as AgonesGameServer;
  }

  async delete(namespace: string, name: string, preconditions?: DeletePreconditions): Promise<void> {
    const body = preconditions === undefined ? {} : { body: { preconditions } };
    await this.custom.deleteNamespacedCustomObject({ ...GAME_SERVERS, namespace, name, ...body });
  }

  /**
   * A GameServerAllocation of a Ready server carrying `labels` in `namespace`; the state Agones
   * answers with (`Allocated`, `UnAllocated`, `Contention`), undefined when it says none.
   */
  async allocate(namespace: string, labels: Record<string, string>): Promise<string | undefined> {
    const allocation = (await this.custom.createNamespacedCustomObject({
      ...ALLOCATIONS,
      namespace,
      body: {
        apiVersion: 'allocation.agones.dev/v1',
        kind: 'GameServerAllocation',
        spec: { selectors: [{ matchLabels: labels, gameServerState: 'Ready' }] },
      },
    })) as { status?: { state?: string } };
    return allocation.status?.state;
  }
}
