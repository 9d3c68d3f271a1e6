import type { Api } from '../api/api.js';
import { runSafely, type Controller, type ControllerContext } from '../controllers/loop.js';
import { typeKey, type KubeObject } from '../api/registry.js';
import {
  controlledBy,
  gameServers,
  GS_LABEL,
  markReady,
  pods,
  ROLE_LABEL,
  setState,
  statusOf,
  type Template,
} from './game-servers.js';

interface GameServerPort {
  name?: string;
  containerPort?: number;
  hostPort?: number;
  protocol?: string;
}

/**
 * A GameServer's start: it gets a pod of the same name and goes Creating -> Scheduled (with an
 * address and host ports) -> Ready; losing its pod makes it Unhealthy.
 */
export function gameServerLifecycle(ctx: ControllerContext): Controller {
  const { api, timers, stepMs } = ctx;

  const onGameServer = (gs: KubeObject, added: boolean): void => {
    if (!added || gs.metadata.deletionTimestamp || statusOf(gs).state !== 'Creating') return;
    timers.after(0, () => createPod(api, gs));
    timers.after(stepMs, () => schedule(ctx, gs.metadata.namespace as string, gs.metadata.name as string));
  };

  const onPodDeleted = (pod: KubeObject): void => {
    const owner = pod.metadata.ownerReferences?.find((r) => r.kind === 'GameServer');
    if (!owner) return;
    timers.after(0, () => {
      const gs = api.store.get(typeKey(gameServers), pod.metadata.namespace, owner.name);
      if (gs && gs.metadata.uid === owner.uid && !gs.metadata.deletionTimestamp) setState(ctx, gs, 'Unhealthy');
    });
  };

  return {
    watches: [typeKey(gameServers), typeKey(pods)],
    onEvent: (event) => {
      if (event.typeKey === typeKey(pods)) {
        if (event.type === 'DELETED') onPodDeleted(event.object);
      } else onGameServer(event.object, event.type === 'ADDED');
    },
    // Servers a data dir brought back mid-start finish starting.
    resume: () => {
      for (const gs of api.store.list(typeKey(gameServers))) {
        const state = statusOf(gs).state;
        if (state === 'Creating') onGameServer(gs, true);
        else if (state === 'Scheduled' && !gs.metadata.deletionTimestamp)
          timers.after(stepMs, () => makeReady(ctx, gs.metadata.namespace as string, gs.metadata.name as string));
      }
    },
  };
}

/** The server's pod: its template's, labelled and owned as Agones makes it. */
function createPod(api: Api, gs: KubeObject): void {
  const ns = gs.metadata.namespace as string;
  const name = gs.metadata.name as string;
  const template: Template = (gs.spec as { template?: Template } | undefined)?.template ?? {};
  const podSpec = structuredClone(template.spec ?? {});
  const containers = (podSpec.containers as { name: string; image?: string }[] | undefined) ?? [];
  if (containers.length === 0) containers.push({ name: 'gameserver', image: 'kube-lite/simulated-game-server' });
  podSpec.containers = containers;
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: ns,
      labels: {
        ...(template.metadata?.labels ?? {}),
        ...(gs.metadata.labels ?? {}),
        [ROLE_LABEL]: 'gameserver',
        [GS_LABEL]: name,
      },
      annotations: {
        ...(template.metadata?.annotations ?? {}),
        'agones.dev/container': containers[0]?.name ?? 'gameserver',
      },
      ownerReferences: [controlledBy(gs, 'GameServer')],
    },
    spec: podSpec,
  };
  runSafely(() => {
    api.create(pods, ns, pod);
  });
}

/** Creating -> Scheduled on node kube-lite, its ports given host ports; Ready follows a step later. */
function schedule(ctx: ControllerContext, ns: string, name: string): void {
  const gs = ctx.api.get(gameServers, ns, name);
  if (gs.metadata.deletionTimestamp || statusOf(gs).state !== 'Creating') return;
  const ports = ((gs.spec as { ports?: GameServerPort[] } | undefined)?.ports ?? []).map((p) => ({
    name: p.name ?? 'default',
    port: p.hostPort ?? p.containerPort ?? 0,
  }));
  setState(ctx, gs, 'Scheduled', {
    address: '127.0.0.1',
    addresses: [
      { type: 'InternalIP', address: '127.0.0.1' },
      { type: 'Hostname', address: 'kube-lite' },
      { type: 'PodIP', address: '127.0.0.1' },
    ],
    nodeName: 'kube-lite',
    ports,
  });
  ctx.timers.after(ctx.stepMs, () => makeReady(ctx, ns, name));
}

function makeReady(ctx: ControllerContext, ns: string, name: string): void {
  const current = ctx.api.get(gameServers, ns, name);
  if (current.metadata.deletionTimestamp || statusOf(current).state !== 'Scheduled') return;
  markReady(ctx, current);
}
