import type { Api } from '../api/api.js';
import { runSafely, type Controller, type ControllerContext } from '../controllers/loop.js';
import { typeKey, type KubeObject } from '../api/registry.js';
import { controlledBy, FLEET_LABEL, fleets, gameServers, GSS_LABEL, statusOf, type Template } from './game-servers.js';

/** Scale down removes servers nobody plays on first: the lower the rank, the sooner it goes. */
const SCALE_DOWN_RANK: Record<string, number> = {
  Creating: 0,
  Scheduled: 1,
  RequestReady: 2,
  Unhealthy: 0,
  Error: 0,
  Ready: 3,
};

/**
 * Fleet scaling: a Fleet keeps `spec.replicas` GameServers labelled with its name (never
 * removing an Allocated or Reserved one) and reports their states in its status.
 */
export function fleetScaling({ api, timers }: ControllerContext): Controller {
  const pending = new Set<string>();

  /** Reconciles a fleet once for all the events of one turn. */
  const enqueue = (ns: string, name: string): void => {
    const key = `${ns}/${name}`;
    if (pending.has(key)) return;
    pending.add(key);
    timers.after(0, () => {
      pending.delete(key);
      reconcile(api, ns, name);
    });
  };

  return {
    watches: [typeKey(gameServers), typeKey(fleets)],
    onEvent: (event) => {
      const { namespace, name, labels } = event.object.metadata;
      if (event.typeKey === typeKey(fleets)) {
        if (event.type !== 'DELETED') enqueue(namespace as string, name as string);
      } else if (labels?.[FLEET_LABEL]) enqueue(namespace as string, labels[FLEET_LABEL]);
    },
    resume: () => {
      for (const fleet of api.store.list(typeKey(fleets)))
        enqueue(fleet.metadata.namespace as string, fleet.metadata.name as string);
    },
  };
}

function reconcile(api: Api, ns: string, name: string): void {
  const fleet = api.store.get(typeKey(fleets), ns, name);
  if (!fleet || fleet.metadata.deletionTimestamp) return;
  const spec = (fleet.spec ?? {}) as { replicas?: number; template?: Template };
  const replicas = spec.replicas ?? 0;
  const owned = membersOf(api, fleet);
  if (owned.length < replicas) scaleUp(api, fleet, replicas - owned.length, spec.template ?? {});
  else if (owned.length > replicas) scaleDown(api, owned, owned.length - replicas);
  reportStatus(api, fleet, membersOf(api, fleet));
}

/** The fleet's GameServers that are not being deleted. */
function membersOf(api: Api, fleet: KubeObject): KubeObject[] {
  return api
    .list(gameServers, fleet.metadata.namespace, { labelSelector: `${FLEET_LABEL}=${fleet.metadata.name}` })
    .items.filter((gs) => !gs.metadata.deletionTimestamp);
}

function scaleUp(api: Api, fleet: KubeObject, count: number, template: Template): void {
  const name = fleet.metadata.name as string;
  const gssName = `${name}-${(fleet.metadata.uid ?? '').replace(/[^a-z0-9]/g, '').slice(0, 5)}`;
  for (let i = 0; i < count; i++) {
    runSafely(() => {
      api.create(gameServers, fleet.metadata.namespace, {
        apiVersion: 'agones.dev/v1',
        kind: 'GameServer',
        metadata: {
          generateName: `${gssName}-`,
          labels: { ...(template.metadata?.labels ?? {}), [FLEET_LABEL]: name, [GSS_LABEL]: gssName },
          annotations: { ...(template.metadata?.annotations ?? {}) },
          ownerReferences: [controlledBy(fleet, 'Fleet')],
        },
        spec: structuredClone(template.spec ?? {}),
      });
    });
  }
}

function scaleDown(api: Api, owned: KubeObject[], count: number): void {
  const rankOf = (gs: KubeObject): number => SCALE_DOWN_RANK[statusOf(gs).state ?? ''] ?? 0;
  const removable = owned
    .filter((gs) => !['Allocated', 'Reserved'].includes(statusOf(gs).state ?? ''))
    .sort((a, b) => rankOf(a) - rankOf(b));
  for (const gs of removable.slice(0, count)) {
    runSafely(() => {
      api.delete(gameServers, gs.metadata.namespace, gs.metadata.name as string);
    });
  }
}

function reportStatus(api: Api, fleet: KubeObject, members: KubeObject[]): void {
  const countState = (state: string): number => members.filter((gs) => statusOf(gs).state === state).length;
  const status = {
    ...((fleet.status ?? {}) as object),
    replicas: members.length,
    readyReplicas: countState('Ready'),
    reservedReplicas: countState('Reserved'),
    allocatedReplicas: countState('Allocated'),
  };
  if (JSON.stringify(status) !== JSON.stringify(fleet.status)) {
    runSafely(() => {
      api.update(
        fleets,
        fleet.metadata.namespace,
        fleet.metadata.name as string,
        { ...fleet, status },
        {
          subresource: 'status',
        },
      );
    });
  }
}
