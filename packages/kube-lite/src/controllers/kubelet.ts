import { nowTimestamp } from '../api/api.js';
import type { StoreEvent } from '../api/store.js';
import { describePod } from './describe-pod.js';
import { storedAsAdded, typeOf, type Controller, type ControllerContext } from './loop.js';

const POD_CONDITIONS = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

/** A kubelet that runs every pod at once on node `kube-lite` and finishes deleting them. */
export function kubelet({ api, consoles, timers, stepMs }: ControllerContext): Controller {
  const pods = typeOf('', 'pods');

  const onPod = (event: StoreEvent): void => {
    const pod = event.object;
    const ns = pod.metadata.namespace as string;
    const name = pod.metadata.name as string;
    if (event.type === 'DELETED') {
      consoles.remove(ns, name);
      return;
    }
    if (pod.metadata.deletionTimestamp) {
      timers.after(stepMs, () => api.finalizeDeletion(pods, ns, name));
      return;
    }
    if (event.type === 'ADDED') timers.after(stepMs, () => runPod(ns, name));
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
          conditions: POD_CONDITIONS.map(condition),
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
    const console_ = consoles.get({ namespace: ns, name, describe: () => describePod(api, ns, name) });
    for (const c of spec.containers ?? []) console_.log(`container ${c.name} started (image ${c.image ?? 'unknown'})`);
  };

  return {
    watches: ['/pods'],
    onEvent: onPod,
    resume: () => {
      for (const event of storedAsAdded(api, '/pods')) {
        const pod = event.object;
        if (pod.metadata.deletionTimestamp || (pod.status as { phase?: string } | undefined)?.phase === 'Pending')
          onPod(event);
      }
    },
  };
}
