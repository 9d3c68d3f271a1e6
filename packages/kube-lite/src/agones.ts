/**
 * A simulated Agones controller: GameServers go Creating -> Scheduled -> Ready with an address
 * and host ports and get a pod of the same name; Fleets keep `spec.replicas` GameServers;
 * GameServerAllocations mark a matching Ready server Allocated; deletion passes Shutdown, and a
 * server set to Shutdown is deleted. What the SDK sidecar does is simulated too: a Reserved
 * server returns to Ready at `status.reservedUntil`, and the console's players are reported in
 * `status.players` (player tracking).
 */
import { nowTimestamp, randomSuffix } from './api.js';
import type { PlayerTracking, PodConsole } from './console.js';
import { describePod, runSafely, typeOf, type ControllerContext } from './controllers.js';
import { typeKey, type KubeObject } from './registry.js';
import { matchesLabels, selectorFromObject, type LabelSelectorObject } from './selectors.js';
import { badRequest } from './status.js';
import type { StoreEvent } from './store.js';

const FINALIZER = 'agones.dev';
const FLEET_LABEL = 'agones.dev/fleet';
const GSS_LABEL = 'agones.dev/gameserverset';
const ROLE_LABEL = 'agones.dev/role';
const GS_LABEL = 'agones.dev/gameserver';

type GameServerState =
  'Creating' | 'Scheduled' | 'RequestReady' | 'Ready' | 'Allocated' | 'Reserved' | 'Shutdown' | 'Unhealthy' | 'Error';

interface GameServerPort {
  name?: string;
  containerPort?: number;
  hostPort?: number;
  protocol?: string;
}

interface GameServerStatus {
  state?: GameServerState;
  address?: string;
  addresses?: { type: string; address: string }[];
  nodeName?: string;
  ports?: { name: string; port: number }[] | null;
  reservedUntil?: string | null;
  players?: PlayerStatus;
  [field: string]: unknown;
}

interface PlayerStatus {
  count: number;
  capacity: number;
  ids: string[] | null;
}

interface AllocationSelector extends LabelSelectorObject {
  gameServerState?: 'Ready' | 'Allocated';
}

interface AllocationSpec {
  selectors?: AllocationSelector[];
  required?: AllocationSelector;
  preferred?: AllocationSelector[];
  scheduling?: string;
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
}

const gameServers = typeOf('agones.dev', 'gameservers');
const fleets = typeOf('agones.dev', 'fleets');
const pods = typeOf('', 'pods');
const namespaces = typeOf('', 'namespaces');

const statusOf = (gs: KubeObject): GameServerStatus => (gs.status ?? {}) as GameServerStatus;

export interface Agones {
  allocate: (namespace: string, body: unknown) => Promise<object>;
  stop: () => void;
}

/** The longest delay one `setTimeout` takes; a later reservedUntil is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function startAgones(ctx: ControllerContext): Agones {
  const { api, timers, stepMs } = ctx;
  const pendingFleets = new Set<string>();
  /** The reservedUntil each Reserved server has a timer for, by namespace/name. */
  const reservations = new Map<string, string>();

  const setState = (gs: KubeObject, state: GameServerState, extra: Partial<GameServerStatus> = {}): KubeObject =>
    api.update(gameServers, gs.metadata.namespace, gs.metadata.name as string, {
      ...gs,
      status: { ...statusOf(gs), ...extra, state },
    });

  const consoleOf = (ns: string, name: string): PodConsole =>
    ctx.consoles.get({ namespace: ns, name, describe: () => describePod(api, ns, name) });

  const onGameServer = (event: StoreEvent): void => {
    const gs = event.object;
    const ns = gs.metadata.namespace as string;
    const name = gs.metadata.name as string;
    const fleet = gs.metadata.labels?.[FLEET_LABEL];
    if (fleet) scheduleFleet(ns, fleet);
    if (event.type === 'DELETED') return;
    if (gs.metadata.deletionTimestamp) {
      if (statusOf(gs).state !== 'Shutdown') {
        timers.after(0, () => {
          const current = api.get(gameServers, ns, name);
          if (statusOf(current).state !== 'Shutdown') setState(current, 'Shutdown');
        });
      } else {
        timers.after(stepMs, () => {
          const current = api.get(gameServers, ns, name);
          const finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== FINALIZER);
          api.update(gameServers, ns, name, { ...current, metadata: { ...current.metadata, finalizers } });
        });
      }
      return;
    }
    const state = statusOf(gs).state;
    if (event.type === 'ADDED' && state === 'Creating') {
      timers.after(0, () => createPod(gs));
      timers.after(stepMs, () => schedule(ns, name));
    }
    // Agones deletes a server that went Shutdown (SDK.Shutdown()); it leaves by the finalizer path.
    if (state === 'Shutdown') {
      timers.after(0, () => {
        const current = api.get(gameServers, ns, name);
        if (statusOf(current).state === 'Shutdown' && !current.metadata.deletionTimestamp)
          api.delete(gameServers, ns, name);
      });
    }
    if (state === 'Reserved') armReservation(gs);
  };

  /** The SDK sidecar's reserve timer: SDK.Reserve(seconds > 0) ends with Ready() at reservedUntil. */
  const armReservation = (gs: KubeObject): void => {
    const ns = gs.metadata.namespace as string;
    const name = gs.metadata.name as string;
    const key = `${ns}/${name}`;
    const until = statusOf(gs).reservedUntil;
    const at = until ? Date.parse(until) : Number.NaN;
    if (!until || Number.isNaN(at) || reservations.get(key) === until) return;
    reservations.set(key, until);
    timers.after(Math.min(Math.max(0, at - Date.now()), MAX_TIMER_MS), () => {
      if (reservations.get(key) !== until) return;
      reservations.delete(key);
      const current = api.store.get(typeKey(gameServers), ns, name);
      if (!current || current.metadata.deletionTimestamp) return;
      const status = statusOf(current);
      if (status.state !== 'Reserved' || status.reservedUntil !== until) return;
      if (Date.now() < at) {
        armReservation(current);
        return;
      }
      setState(current, 'Ready', { reservedUntil: null });
      consoleOf(ns, name).log('SDK: Ready() called, game server is Ready');
    });
  };

  /** The sidecar's PlayerConnect/PlayerDisconnect: status.players follows the console's players. */
  const playerTracking: PlayerTracking = {
    capacity: ({ namespace, name }) => {
      const gs = api.store.get(typeKey(gameServers), namespace, name);
      return gs ? statusOf(gs).players?.capacity : undefined;
    },
    changed: ({ namespace, name }, ids) => {
      timers.after(0, () => {
        const gs = api.store.get(typeKey(gameServers), namespace, name);
        const players = gs && statusOf(gs).players;
        if (!gs || !players || gs.metadata.deletionTimestamp) return;
        api.update(gameServers, namespace, name, {
          ...gs,
          status: { ...statusOf(gs), players: { ...players, count: ids.length, ids } },
        });
      });
    },
  };
  ctx.consoles.playerTracking = playerTracking;

  const createPod = (gs: KubeObject): void => {
    const ns = gs.metadata.namespace as string;
    const name = gs.metadata.name as string;
    const template = ((
      gs.spec as { template?: { metadata?: KubeObject['metadata']; spec?: Record<string, unknown> } } | undefined
    )?.template ?? {}) as {
      metadata?: KubeObject['metadata'];
      spec?: Record<string, unknown>;
    };
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
        ownerReferences: [
          {
            apiVersion: 'agones.dev/v1',
            kind: 'GameServer',
            name,
            uid: gs.metadata.uid as string,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: podSpec,
    };
    runSafely(() => {
      api.create(pods, ns, pod);
    });
  };

  const schedule = (ns: string, name: string): void => {
    const gs = api.get(gameServers, ns, name);
    if (gs.metadata.deletionTimestamp || statusOf(gs).state !== 'Creating') return;
    const ports = ((gs.spec as { ports?: GameServerPort[] } | undefined)?.ports ?? []).map((p) => ({
      name: p.name ?? 'default',
      port: p.hostPort ?? p.containerPort ?? 0,
    }));
    setState(gs, 'Scheduled', {
      address: '127.0.0.1',
      addresses: [
        { type: 'InternalIP', address: '127.0.0.1' },
        { type: 'Hostname', address: 'kube-lite' },
        { type: 'PodIP', address: '127.0.0.1' },
      ],
      nodeName: 'kube-lite',
      ports,
    });
    timers.after(stepMs, () => makeReady(ns, name));
  };

  const makeReady = (ns: string, name: string): void => {
    const current = api.get(gameServers, ns, name);
    if (current.metadata.deletionTimestamp || statusOf(current).state !== 'Scheduled') return;
    setState(current, 'Ready');
    consoleOf(ns, name).log('SDK: Ready() called, game server is Ready');
  };

  const scheduleFleet = (ns: string, name: string): void => {
    const key = `${ns}/${name}`;
    if (pendingFleets.has(key)) return;
    pendingFleets.add(key);
    timers.after(0, () => {
      pendingFleets.delete(key);
      reconcileFleet(ns, name);
    });
  };

  const reconcileFleet = (ns: string, name: string): void => {
    const fleet = api.store.get(typeKey(fleets), ns, name);
    if (!fleet || fleet.metadata.deletionTimestamp) return;
    const spec = (fleet.spec ?? {}) as {
      replicas?: number;
      template?: { metadata?: KubeObject['metadata']; spec?: Record<string, unknown> };
    };
    const replicas = spec.replicas ?? 0;
    const owned = api
      .list(gameServers, ns, { labelSelector: `${FLEET_LABEL}=${name}` })
      .items.filter((gs) => !gs.metadata.deletionTimestamp);
    const gssName = `${name}-${(fleet.metadata.uid ?? '').replace(/[^a-z0-9]/g, '').slice(0, 5)}`;
    if (owned.length < replicas) {
      for (let i = owned.length; i < replicas; i++) {
        const template = spec.template ?? {};
        runSafely(() => {
          api.create(gameServers, ns, {
            apiVersion: 'agones.dev/v1',
            kind: 'GameServer',
            metadata: {
              generateName: `${gssName}-`,
              labels: { ...(template.metadata?.labels ?? {}), [FLEET_LABEL]: name, [GSS_LABEL]: gssName },
              annotations: { ...(template.metadata?.annotations ?? {}) },
              ownerReferences: [
                {
                  apiVersion: 'agones.dev/v1',
                  kind: 'Fleet',
                  name,
                  uid: fleet.metadata.uid as string,
                  controller: true,
                  blockOwnerDeletion: true,
                },
              ],
            },
            spec: structuredClone(template.spec ?? {}),
          });
        });
      }
    } else if (owned.length > replicas) {
      // Scale down removes servers nobody plays on first and never an Allocated one.
      const rank: Record<string, number> = {
        Creating: 0,
        Scheduled: 1,
        RequestReady: 2,
        Unhealthy: 0,
        Error: 0,
        Ready: 3,
      };
      const removable = owned
        .filter((gs) => !['Allocated', 'Reserved'].includes(statusOf(gs).state ?? ''))
        .sort((a, b) => (rank[statusOf(a).state ?? ''] ?? 0) - (rank[statusOf(b).state ?? ''] ?? 0));
      for (const gs of removable.slice(0, owned.length - replicas)) {
        runSafely(() => {
          api.delete(gameServers, ns, gs.metadata.name as string);
        });
      }
    }
    const current = api
      .list(gameServers, ns, { labelSelector: `${FLEET_LABEL}=${name}` })
      .items.filter((gs) => !gs.metadata.deletionTimestamp);
    const countState = (state: string): number => current.filter((gs) => statusOf(gs).state === state).length;
    const status = {
      ...((fleet.status ?? {}) as object),
      replicas: current.length,
      readyReplicas: countState('Ready'),
      reservedReplicas: countState('Reserved'),
      allocatedReplicas: countState('Allocated'),
    };
    if (JSON.stringify(status) !== JSON.stringify(fleet.status)) {
      runSafely(() => {
        api.update(fleets, ns, name, { ...fleet, status }, { subresource: 'status' });
      });
    }
  };

  const onEvent = (event: StoreEvent): void => {
    if (event.typeKey === typeKey(gameServers)) onGameServer(event);
    else if (event.typeKey === typeKey(fleets) && event.type !== 'DELETED')
      scheduleFleet(event.object.metadata.namespace as string, event.object.metadata.name as string);
    else if (event.typeKey === typeKey(pods) && event.type === 'DELETED') {
      const owner = event.object.metadata.ownerReferences?.find((r) => r.kind === 'GameServer');
      if (!owner) return;
      timers.after(0, () => {
        const gs = api.store.get(typeKey(gameServers), event.object.metadata.namespace, owner.name);
        if (gs && gs.metadata.uid === owner.uid && !gs.metadata.deletionTimestamp) setState(gs, 'Unhealthy');
      });
    }
  };

  const allocate = async (namespace: string, body: unknown): Promise<object> => {
    api.get(namespaces, undefined, namespace);
    if (body === null || typeof body !== 'object')
      throw badRequest('the body of the request must be a GameServerAllocation');
    const request = body as { metadata?: KubeObject['metadata']; spec?: AllocationSpec };
    const spec: AllocationSpec = request.spec ?? {};
    const selectors: AllocationSelector[] = spec.selectors?.length
      ? spec.selectors
      : [...(spec.preferred ?? []).map((p) => ({ ...p, ...mergeRequired(p, spec.required) })), spec.required ?? {}];
    const candidates = api.list(gameServers, namespace).items.filter((gs) => !gs.metadata.deletionTimestamp);
    let chosen: KubeObject | undefined;
    for (const selector of selectors) {
      const wanted = selector.gameServerState ?? 'Ready';
      const requirements = selectorFromObject(selector);
      chosen = candidates.find(
        (gs) => statusOf(gs).state === wanted && matchesLabels(requirements, gs.metadata.labels),
      );
      if (chosen) break;
    }
    const metadata: KubeObject['metadata'] = { namespace, creationTimestamp: nowTimestamp() };
    const responseSpec = { scheduling: spec.scheduling ?? 'Packed', selectors, metadata: spec.metadata ?? {} };
    if (!chosen) {
      metadata.name = request.metadata?.name ?? `${request.metadata?.generateName ?? 'gsa-'}${randomSuffix()}`;
      return {
        apiVersion: 'allocation.agones.dev/v1',
        kind: 'GameServerAllocation',
        metadata,
        spec: responseSpec,
        status: {
          state: 'UnAllocated',
          gameServerName: '',
          ports: null,
          address: '',
          addresses: null,
          nodeName: '',
          source: '',
        },
      };
    }
    const labels = { ...(chosen.metadata.labels ?? {}), ...(spec.metadata?.labels ?? {}) };
    const annotations = { ...(chosen.metadata.annotations ?? {}), ...(spec.metadata?.annotations ?? {}) };
    const allocated = api.update(gameServers, namespace, chosen.metadata.name as string, {
      ...chosen,
      metadata: { ...chosen.metadata, labels, annotations },
      status: { ...statusOf(chosen), state: 'Allocated' },
    });
    const status = statusOf(allocated);
    metadata.name = allocated.metadata.name as string;
    return {
      apiVersion: 'allocation.agones.dev/v1',
      kind: 'GameServerAllocation',
      metadata,
      spec: responseSpec,
      status: {
        state: 'Allocated',
        gameServerName: allocated.metadata.name,
        ports: status.ports ?? [],
        address: status.address ?? '',
        addresses: status.addresses ?? [],
        nodeName: status.nodeName ?? '',
        source: 'local',
        metadata: { labels, annotations },
      },
    };
  };

  // Reconcile what a data dir brought back: servers mid-start finish starting, Shutdown ones
  // go, and reservations run out.
  timers.after(0, () => {
    for (const gs of api.store.list(typeKey(gameServers))) {
      const event: StoreEvent = {
        type: 'ADDED',
        typeKey: typeKey(gameServers),
        resourceVersion: api.store.resourceVersion,
        object: gs,
      };
      const state = statusOf(gs).state;
      if (state === 'Creating' || state === 'Shutdown' || state === 'Reserved' || gs.metadata.deletionTimestamp)
        onGameServer(event);
      else if (state === 'Scheduled')
        timers.after(stepMs, () => makeReady(gs.metadata.namespace as string, gs.metadata.name as string));
    }
    for (const fleet of api.store.list(typeKey(fleets)))
      scheduleFleet(fleet.metadata.namespace as string, fleet.metadata.name as string);
  });

  const unsubscribe = api.store.subscribe(onEvent);
  const stop = (): void => {
    unsubscribe();
    if (ctx.consoles.playerTracking === playerTracking) ctx.consoles.playerTracking = undefined;
  };
  return { allocate, stop };
}

function mergeRequired(preferred: AllocationSelector, required: AllocationSelector | undefined): AllocationSelector {
  return {
    matchLabels: { ...(required?.matchLabels ?? {}), ...(preferred.matchLabels ?? {}) },
    matchExpressions: [...(required?.matchExpressions ?? []), ...(preferred.matchExpressions ?? [])],
  };
}
