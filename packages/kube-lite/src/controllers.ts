/**
 * The built-in controllers kube-lite simulates: namespace deletion, a kubelet that runs pods
 * instantly, a volume provisioner and snapshotter, and the garbage collector that deletes
 * dependents of deleted owners.
 */
import type { Api } from './api.js';
import { nowTimestamp } from './api.js';
import type { Consoles } from './console.js';
import { RESOURCE_TYPES, typeKey, type KubeObject, type ResourceType } from './registry.js';
import { StatusError } from './status.js';
import type { StoreEvent } from './store.js';

export const typeByKey = new Map(RESOURCE_TYPES.map((t) => [typeKey(t), t] as const));
export const typeOf = (group: string, plural: string): ResourceType =>
  typeByKey.get(`${group}/${plural}`) as ResourceType;

/** Timers that all stop when kube-lite closes. */
export class Timers {
  private readonly pending = new Set<NodeJS.Timeout>();
  private closed = false;

  after(ms: number, fn: () => void): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      if (!this.closed) runSafely(fn);
    }, ms);
    this.pending.add(timer);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }
}

/** Controllers race with clients exactly as in a cluster: losing a race (404, 409) is normal. */
export function runSafely(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
    throw err;
  }
}

export interface ControllerContext {
  api: Api;
  consoles: Consoles;
  timers: Timers;
  /** Delay between the steps of simulated work, such as a pod starting. */
  stepMs: number;
}

export function startBuiltinControllers(ctx: ControllerContext): () => void {
  const { api, timers } = ctx;
  const namespaces = typeOf('', 'namespaces');
  const pods = typeOf('', 'pods');
  const claims = typeOf('', 'persistentvolumeclaims');
  const snapshots = typeOf('snapshot.storage.k8s.io', 'volumesnapshots');

  const onEvent = (event: StoreEvent): void => {
    const obj = event.object;
    if (event.typeKey === '/namespaces' && event.type === 'MODIFIED' && obj.metadata.deletionTimestamp) {
      timers.after(ctx.stepMs, () => finalizeNamespace(obj.metadata.name as string));
    }
    if (event.typeKey === '/pods') onPod(event);
    if (event.typeKey === '/persistentvolumeclaims' && event.type === 'ADDED')
      timers.after(ctx.stepMs, () => bindClaim(obj));
    if (event.typeKey === 'snapshot.storage.k8s.io/volumesnapshots' && event.type === 'ADDED')
      timers.after(ctx.stepMs, () => takeSnapshot(obj));
    if (event.typeKey === 'snapshot.storage.k8s.io/volumesnapshots' && event.type !== 'DELETED' && isReady(obj))
      timers.after(ctx.stepMs, () => restoreFrom(obj));
    if (event.type === 'DELETED') timers.after(0, () => collectDependents(obj));
  };

  const finalizeNamespace = (name: string): void => {
    for (const type of RESOURCE_TYPES) {
      if (!type.namespaced) continue;
      for (const item of api.store.list(typeKey(type), name))
        api.store.remove(typeKey(type), name, item.metadata.name as string);
    }
    api.finalizeDeletion(namespaces, undefined, name);
  };

  const onPod = (event: StoreEvent): void => {
    const pod = event.object;
    const ns = pod.metadata.namespace as string;
    const name = pod.metadata.name as string;
    if (event.type === 'DELETED') {
      ctx.consoles.remove(ns, name);
      return;
    }
    if (pod.metadata.deletionTimestamp) {
      timers.after(ctx.stepMs, () => api.finalizeDeletion(pods, ns, name));
      return;
    }
    if (event.type === 'ADDED') timers.after(ctx.stepMs, () => runPod(ns, name));
  };

  const runPod = (ns: string, name: string): void => {
    const pod = api.get(pods, ns, name);
    if (pod.metadata.deletionTimestamp) return;
    const spec = (pod.spec ?? {}) as { containers?: { name: string; image?: string }[]; nodeName?: string };
    const started = nowTimestamp();
    if (!spec.nodeName) {
      api.update(pods, ns, name, { ...pod, spec: { ...spec, nodeName: 'kube-lite' } });
    }
    const current = api.get(pods, ns, name);
    const condition = (type: string): object => ({
      type,
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: started,
    });
    api.update(
      pods,
      ns,
      name,
      {
        ...current,
        status: {
          phase: 'Running',
          conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(
            condition,
          ),
          hostIP: '127.0.0.1',
          hostIPs: [{ ip: '127.0.0.1' }],
          podIP: '127.0.0.1',
          podIPs: [{ ip: '127.0.0.1' }],
          startTime: started,
          qosClass: 'BestEffort',
          containerStatuses: (spec.containers ?? []).map((c) => ({
            name: c.name,
            image: c.image ?? '',
            imageID: '',
            ready: true,
            started: true,
            restartCount: 0,
            state: { running: { startedAt: started } },
          })),
        },
      },
      { subresource: 'status' },
    );
    const console_ = ctx.consoles.get({ namespace: ns, name, describe: () => describePod(api, ns, name) });
    for (const c of spec.containers ?? []) console_.log(`container ${c.name} started (image ${c.image ?? 'unknown'})`);
  };

  /**
   * A provisioner that binds every claim at once to a volume of the requested size; one restored
   * from a VolumeSnapshot (its dataSourceRef) stays Pending until that snapshot is ready to use,
   * as the CSI external-provisioner retries until then.
   */
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

  /** A CSI snapshotter that cuts every snapshot at once, or reports the missing source claim. */
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
            message: `failed to get input parameters to create snapshot ${name}: "persistentvolumeclaims "${source ?? ''}" not found"`,
          },
        };
    api.update(snapshots, ns, name, { ...current, status }, { subresource: 'status' });
  };

  /** Binds the claims waiting for `snapshot`, now ready, to restore from it. */
  const restoreFrom = (snapshot: KubeObject): void => {
    const ns = snapshot.metadata.namespace as string;
    for (const claim of api.store.list('/persistentvolumeclaims', ns)) {
      if (snapshotSourceOf(claim) === snapshot.metadata.name) runSafely(() => bindClaim(claim));
    }
  };

  const collectDependents = (owner: KubeObject): void => {
    const uid = owner.metadata.uid;
    if (!uid) return;
    for (const type of RESOURCE_TYPES) {
      for (const item of api.store.list(typeKey(type), owner.metadata.namespace || undefined)) {
        if (!(item.metadata.ownerReferences ?? []).some((ref) => ref.uid === uid)) continue;
        runSafely(() => {
          api.delete(type, item.metadata.namespace, item.metadata.name as string);
        });
      }
    }
  };

  // Finish what a data dir brought back mid-flight, as controllers do after a restart.
  timers.after(0, () => {
    for (const ns of api.store.list('/namespaces'))
      if (ns.metadata.deletionTimestamp) finalizeNamespace(ns.metadata.name as string);
    for (const pod of api.store.list('/pods')) {
      const event: StoreEvent = {
        type: 'ADDED',
        typeKey: '/pods',
        resourceVersion: api.store.resourceVersion,
        object: pod,
      };
      if (pod.metadata.deletionTimestamp || (pod.status as { phase?: string } | undefined)?.phase === 'Pending')
        onPod(event);
    }
    for (const claim of api.store.list('/persistentvolumeclaims')) bindClaim(claim);
    for (const snapshot of api.store.list(typeKey(snapshots))) {
      const status = (snapshot.status ?? {}) as { readyToUse?: boolean; error?: unknown };
      if (!status.readyToUse && !status.error) takeSnapshot(snapshot);
    }
  });

  return api.store.subscribe(onEvent);
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

export function describePod(api: Api, namespace: string, name: string): string {
  const gs = api.store.get('agones.dev/gameservers', namespace, name);
  if (gs) {
    const status = (gs.status ?? {}) as { state?: string; address?: string; ports?: { name: string; port: number }[] };
    const ports = (status.ports ?? []).map((p) => `${p.name}=${p.port}`).join(',');
    return `gameserver ${namespace}/${name}: state=${status.state ?? 'Unknown'} address=${status.address ?? ''} ports=${ports}`;
  }
  const pod = api.store.get('/pods', namespace, name);
  return `pod ${namespace}/${name}: phase=${(pod?.status as { phase?: string } | undefined)?.phase ?? 'Unknown'}`;
}
