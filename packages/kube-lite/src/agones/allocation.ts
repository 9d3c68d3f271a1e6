import { nowTimestamp, randomSuffix, type Api } from '../api/api.js';
import type { KubeObject } from '../api/registry.js';
import { matchesLabels, selectorFromObject, type LabelSelectorObject } from '../api/selectors.js';
import { badRequest } from '../api/status.js';
import { gameServers, namespaces, statusOf } from './game-servers.js';

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

/**
 * A GameServerAllocation: the first selector that matches a server in its wanted state (Ready
 * unless said otherwise) marks that server Allocated; none matching answers UnAllocated.
 */
export function allocate(api: Api, namespace: string, body: unknown): object {
  api.get(namespaces, undefined, namespace);
  if (body === null || typeof body !== 'object')
    throw badRequest('the body of the request must be a GameServerAllocation');
  const request = body as { metadata?: KubeObject['metadata']; spec?: AllocationSpec };
  const spec: AllocationSpec = request.spec ?? {};
  const selectors: AllocationSelector[] = spec.selectors?.length
    ? spec.selectors
    : [...(spec.preferred ?? []).map((p) => ({ ...p, ...mergeRequired(p, spec.required) })), spec.required ?? {}];
  const chosen = choose(api, namespace, selectors);
  const metadata: KubeObject['metadata'] = { namespace, creationTimestamp: nowTimestamp() };
  const responseSpec = { scheduling: spec.scheduling ?? 'Packed', selectors, metadata: spec.metadata ?? {} };
  if (!chosen) {
    metadata.name = request.metadata?.name ?? `${request.metadata?.generateName ?? 'gsa-'}${randomSuffix()}`;
    return answer(metadata, responseSpec, {
      state: 'UnAllocated',
      gameServerName: '',
      ports: null,
      address: '',
      addresses: null,
      nodeName: '',
      source: '',
    });
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
  return answer(metadata, responseSpec, {
    state: 'Allocated',
    gameServerName: allocated.metadata.name,
    ports: status.ports ?? [],
    address: status.address ?? '',
    addresses: status.addresses ?? [],
    nodeName: status.nodeName ?? '',
    source: 'local',
    metadata: { labels, annotations },
  });
}

/** The GameServerAllocation the API answers with: the request's spec and the outcome. */
function answer(metadata: KubeObject['metadata'], spec: object, status: object): object {
  return { apiVersion: 'allocation.agones.dev/v1', kind: 'GameServerAllocation', metadata, spec, status };
}

/** The server the first matching selector picks. */
function choose(api: Api, namespace: string, selectors: AllocationSelector[]): KubeObject | undefined {
  const candidates = api.list(gameServers, namespace).items.filter((gs) => !gs.metadata.deletionTimestamp);
  for (const selector of selectors) {
    const wanted = selector.gameServerState ?? 'Ready';
    const requirements = selectorFromObject(selector);
    const chosen = candidates.find(
      (gs) => statusOf(gs).state === wanted && matchesLabels(requirements, gs.metadata.labels),
    );
    if (chosen) return chosen;
  }
  return undefined;
}

function mergeRequired(preferred: AllocationSelector, required: AllocationSelector | undefined): AllocationSelector {
  return {
    matchLabels: { ...(required?.matchLabels ?? {}), ...(preferred.matchLabels ?? {}) },
    matchExpressions: [...(required?.matchExpressions ?? []), ...(preferred.matchExpressions ?? [])],
  };
}
