/**
 * Discovery documents (`/version`, `/api`, `/apis`, APIResourceLists) and the minimal OpenAPI v3
 * documents kubectl reads to decide on server-side field validation.
 */
import { RESOURCE_TYPES, apiGroups, apiVersionOf, type ResourceType } from './registry.js';

export const KUBERNETES_VERSION = { major: '1', minor: '35', gitVersion: 'v1.35.0-kube-lite' };

export function versionInfo(): Record<string, string> {
  return {
    major: KUBERNETES_VERSION.major,
    minor: KUBERNETES_VERSION.minor,
    emulationMajor: KUBERNETES_VERSION.major,
    emulationMinor: KUBERNETES_VERSION.minor,
    gitVersion: KUBERNETES_VERSION.gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export function apiVersions(serverAddress: string): object {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupEntry(group: string, version: string): object {
  const gv = { groupVersion: `${group}/${version}`, version };
  return { name: group, versions: [gv], preferredVersion: gv };
}

export function apiGroupList(): object {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: apiGroups().map(({ group, version }) => groupEntry(group, version)) };
}

export function apiGroup(group: string): object | undefined {
  const found = apiGroups().find((g) => g.group === group);
  return found ? { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(found.group, found.version) } : undefined;
}

const SUBRESOURCES: Record<string, { kind: string; verbs: string[]; group?: string; version?: string }> = {
  status: { kind: '', verbs: ['get', 'patch', 'update'] },
  log: { kind: 'Pod', verbs: ['get'] },
  exec: { kind: 'PodExecOptions', verbs: ['create', 'get'] },
  attach: { kind: 'PodAttachOptions', verbs: ['create', 'get'] },
  finalize: { kind: 'Namespace', verbs: ['update'] },
  scale: { kind: 'Scale', verbs: ['get', 'patch', 'update'], group: 'autoscaling', version: 'v1' },
};

export function apiResourceList(group: string, version: string): object | undefined {
  const types = RESOURCE_TYPES.filter((t) => t.group === group && t.version === version);
  if (types.length === 0) return undefined;
  const resources: object[] = [];
  for (const type of types) {
    const entry: Record<string, unknown> = {
      name: type.plural,
      singularName: type.singular,
      namespaced: type.namespaced,
      kind: type.kind,
      verbs: type.verbs,
    };
    if (type.shortNames.length) entry.shortNames = type.shortNames;
    if (type.categories) entry.categories = type.categories;
    resources.push(entry);
    for (const sub of type.subresources) {
      const info = SUBRESOURCES[sub];
      if (!info) continue;
      const subEntry: Record<string, unknown> = { name: `${type.plural}/${sub}`, singularName: '', namespaced: type.namespaced, kind: info.kind || type.kind, verbs: info.verbs };
      if (info.group) subEntry.group = info.group;
      if (info.version) subEntry.version = info.version;
      resources.push(subEntry);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}

function openApiPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** `/openapi/v3`: where each group-version's document lives. */
export function openApiV3Index(): object {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  const seen = new Set<string>();
  for (const type of RESOURCE_TYPES) {
    const p = openApiPath(type.group, type.version);
    if (seen.has(p)) continue;
    seen.add(p);
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hashOf(p)}` };
  }
  return { paths };
}

function hashOf(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).toUpperCase().padStart(8, '0').repeat(4);
}

function gvkName(type: ResourceType): string {
  const groupParts = type.group ? type.group.split('.').reverse().join('.') : 'io.k8s.api.core';
  return `${groupParts}.${type.version}.${type.kind}`;
}

/**
 * A group-version's OpenAPI v3 document: every kind as a schema that accepts any fields
 * (`x-kubernetes-preserve-unknown-fields`), with the GVK extension and the `fieldValidation`
 * query parameter kubectl looks for before it leaves validation to the server.
 */
export function openApiV3Document(relative: string): object | undefined {
  const types = RESOURCE_TYPES.filter((t) => openApiPath(t.group, t.version) === relative);
  if (types.length === 0) return undefined;
  const schemas: Record<string, object> = {};
  const paths: Record<string, object> = {};
  const fieldValidation = {
    name: 'fieldValidation',
    in: 'query',
    description: 'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields.',
    schema: { type: 'string', uniqueItems: true },
  };
  for (const type of types) {
    const name = gvkName(type);
    const gvk = [{ group: type.group, version: type.version, kind: type.kind }];
    schemas[name] = {
      type: 'object',
      description: `${type.kind} as served by kube-lite.`,
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
      'x-kubernetes-preserve-unknown-fields': true,
      'x-kubernetes-group-version-kind': gvk,
    };
    const ref = { content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } };
    const base = `/${relative}${type.namespaced ? '/namespaces/{namespace}' : ''}/${type.plural}`;
    const op = (verb: string): object => ({
      operationId: `${verb}${type.kind}`,
      parameters: [fieldValidation],
      requestBody: ref,
      responses: { '200': { description: 'OK', ...ref } },
      'x-kubernetes-action': verb,
      'x-kubernetes-group-version-kind': gvk[0],
    });
    paths[base] = { post: op('post') };
    paths[`${base}/{name}`] = { put: op('put'), patch: op('patch') };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBERNETES_VERSION.gitVersion },
    paths,
    components: { schemas },
  };
}

export { apiVersionOf };
