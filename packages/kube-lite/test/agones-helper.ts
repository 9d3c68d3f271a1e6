import type { CustomObjectsApi } from '@kubernetes/client-node';
import { until } from './helper.js';

/** What the Agones tests do through client-node's CustomObjectsApi, in namespace `default`. */

export const gameservers = { group: 'agones.dev', version: 'v1', namespace: 'default', plural: 'gameservers' };
export const fleets = { ...gameservers, plural: 'fleets' };

interface HasState {
  status: { state: string };
}

/** Creates a GameServer and resolves with what the API answered. */
export async function createGameServer<T = unknown>(
  custom: CustomObjectsApi,
  metadata: object,
  spec: object = {},
): Promise<T> {
  return (await custom.createNamespacedCustomObject({
    ...gameservers,
    body: { apiVersion: 'agones.dev/v1', kind: 'GameServer', metadata, spec },
  })) as T;
}

/** Creates a Fleet of `replicas` servers made from `template`. */
export async function createFleet(
  custom: CustomObjectsApi,
  name: string,
  replicas: number,
  template: object = { spec: {} },
): Promise<unknown> {
  return custom.createNamespacedCustomObject({
    ...fleets,
    body: { apiVersion: 'agones.dev/v1', kind: 'Fleet', metadata: { name }, spec: { replicas, template } },
  });
}

export async function readGameServer<T extends HasState>(custom: CustomObjectsApi, name: string): Promise<T> {
  return (await custom.getNamespacedCustomObject({ ...gameservers, name })) as T;
}

/** Waits for GameServer `name` to be in `state` and resolves with it. */
export async function untilState<T extends HasState>(
  custom: CustomObjectsApi,
  name: string,
  state = 'Ready',
): Promise<T> {
  return until(async () => {
    const gs = await readGameServer<T>(custom, name);
    return gs.status.state === state && gs;
  }, `${name} to be ${state}`);
}

export async function listGameServers<T>(custom: CustomObjectsApi, labelSelector?: string): Promise<T[]> {
  return ((await custom.listNamespacedCustomObject({ ...gameservers, labelSelector })) as { items: T[] }).items;
}

/** Creates a GameServerAllocation with `spec` and resolves with the answer. */
export async function createAllocation<T>(custom: CustomObjectsApi, spec: object): Promise<T> {
  return (await custom.createNamespacedCustomObject({
    group: 'allocation.agones.dev',
    version: 'v1',
    namespace: 'default',
    plural: 'gameserverallocations',
    body: { apiVersion: 'allocation.agones.dev/v1', kind: 'GameServerAllocation', spec },
  })) as T;
}
