import { getJson, send } from '../../lib/api';
import type { components } from '../../lib/api';

/** A fleet as `GET /api/v1/fleets` answers it. */
export type Fleet = components['schemas']['Fleet'];

/** The scale route's bound (the control plane's MAX_REPLICAS): each replica is a pod. */
export const MAX_REPLICAS = 10_000;

export const listFleets = (signal: AbortSignal): Promise<Fleet[]> => getJson<Fleet[]>('/api/v1/fleets', signal);

/** Sets the fleet's desired replicas; the control plane answers once its cache shows them. */
export async function scaleFleet(fleet: Pick<Fleet, 'namespace' | 'name'>, replicas: number): Promise<void> {
  const where = `${encodeURIComponent(fleet.namespace)}/${encodeURIComponent(fleet.name)}`;
  await send<Fleet>('POST', `/api/v1/fleets/${where}/scale`, { body: { replicas } });
}

/**
 * What is wrong with `text` as a replica count, in a sentence; undefined when it is a whole
 * number from 0 to MAX_REPLICAS.
 */
export function replicasProblem(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed) || Number(trimmed) > MAX_REPLICAS)
    return `Enter a whole number of replicas from 0 to ${MAX_REPLICAS}.`;
  return undefined;
}
