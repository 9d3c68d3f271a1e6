/**
 * Discovery documents (`/version`, `/api`, `/apis`, APIResourceLists) and the minimal OpenAPI v3
 * documents kubectl reads to decide on server-side field validation, and the OpenAPI v2 document
 * it reads for client-side validation.
 */
import { AUTHENTICATION_GROUP, AUTHENTICATION_VERSION, authenticationResourceList } from './authentication.js';
import { RESOURCE_TYPES, apiGroups, apiVersionOf, type ResourceType } from './api/registry.js';

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
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupEntry(group: string, version: string): object {
  const gv = { groupVersion: `${group}/${version}`, version };
  return { name: group, versions: [gv], preferredVersion: gv };
}

/** The stored resources' groups, and authentication.k8s.io for SelfSubjectReview (src/authentication.ts). */
function servedGroups(): { group: string; version: string }[] {
  return [...apiGroups(), { group: AUTHENTICATION_GROUP, version: AUTHENTICATION_VERSION }];
}

export function apiGroupList(): object {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: servedGroups().map(({ group, version }) => groupEntry(group, version)),
  };
}

export function apiGroup(group: string): object | undefined {
  const found = servedGroups().find((g) => g.group === group);
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
  if (group === AUTHENTICATION_GROUP && version === AUTHENTICATION_VERSION) return authenticationResourceList();
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
      const subEntry: Record<string, unknown> = {
        name: `${type.plural}/${sub}`,
        singularName: '',
        namespaced: type.namespaced,
        kind: info.kind || type.kind,
        verbs: info.verbs,
      };
      if (info.group) subEntry.group = info.group;
      if (info.version) subEntry.version = info.version;
      resources.push(subEntry);
    }
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources,
  };
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

const FIELD_VALIDATION_DESCRIPTION =
  'fieldValidation instructs the server on how to handle objects in the request ' +
  'containing unknown or duplicate fields.';

/** A kind's schema, the same in both documents: it accepts any fields and names its GVK. */
function kindSchema(type: ResourceType): Record<string, unknown> {
  return {
    type: 'object',
    description: `${type.kind} as served by kube-lite.`,
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
    'x-kubernetes-preserve-unknown-fields': true,
    'x-kubernetes-group-version-kind': [{ group: type.group, version: type.version, kind: type.kind }],
  };
}

/** The collection and item paths of a kind (the same in both documents). */
function kindPaths(type: ResourceType): { base: string; item: string } {
  const namespace = type.namespaced ? '/namespaces/{namespace}' : '';
  const base = `/${openApiPath(type.group, type.version)}${namespace}/${type.plural}`;
  return { base, item: `${base}/{name}` };
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
    description: FIELD_VALIDATION_DESCRIPTION,
    schema: { type: 'string', uniqueItems: true },
  };
  for (const type of types) {
    const name = gvkName(type);
    schemas[name] = kindSchema(type);
    const ref = { content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } };
    const op = (verb: string): object => ({
      operationId: `${verb}${type.kind}`,
      parameters: [fieldValidation],
      requestBody: ref,
      responses: { '200': { description: 'OK', ...ref } },
      'x-kubernetes-action': verb,
      'x-kubernetes-group-version-kind': { group: type.group, version: type.version, kind: type.kind },
    });
    const { base, item } = kindPaths(type);
    paths[base] = { post: op('post') };
    paths[item] = { put: op('put'), patch: op('patch') };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBERNETES_VERSION.gitVersion },
    paths,
    components: { schemas },
  };
}

/**
 * A schema as the API server publishes it in OpenAPI v2 (apiextensions-apiserver's
 * `ToStructuralOpenAPIV2`): a node that preserves unknown fields loses its `properties` and
 * `items`, because kubectl's client-side validation would otherwise reject the unknown fields.
 */
function toV2Schema(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...schema };
  if (out['x-kubernetes-preserve-unknown-fields'] === true) {
    delete out.properties;
    delete out.items;
  } else if (out.properties) {
    out.properties = Object.fromEntries(
      Object.entries(out.properties as Record<string, Record<string, unknown>>).map(([k, v]) => [k, toV2Schema(v)]),
    );
  }
  return out;
}

function pathParameter(name: string, description: string): object {
  return { uniqueItems: true, type: 'string', description, name, in: 'path', required: true };
}

/**
 * `/openapi/v2`: one Swagger 2.0 document for every group-version, with the same kinds,
 * operations and `fieldValidation` parameter as the v3 documents. kubectl reads it (as protobuf,
 * see `openapiv2.ts`) for client-side validation where the v3 documents do not apply: the items of
 * a `v1` `List` are always validated against it. PATCH operations list no `consumes` on purpose:
 * our schemas carry no patch merge keys, so kubectl must keep building strategic merge patches from
 * its compiled-in types (as it does when the v3 document offers no strategic merge patch).
 */
export function openApiV2Document(): Record<string, unknown> {
  const definitions: Record<string, object> = {};
  const paths: Record<string, Record<string, object>> = {};
  const fieldValidation = {
    uniqueItems: true,
    type: 'string',
    description: FIELD_VALIDATION_DESCRIPTION,
    name: 'fieldValidation',
    in: 'query',
  };
  const namespace = pathParameter('namespace', 'object name and auth scope, such as for teams and projects');
  for (const type of RESOURCE_TYPES) {
    const name = gvkName(type);
    definitions[name] = toV2Schema(kindSchema(type));
    const ref = { $ref: `#/definitions/${name}` };
    const op = (verb: string): object => ({
      operationId: `${verb}${type.kind}`,
      parameters: [{ name: 'body', in: 'body', required: true, schema: ref }, fieldValidation],
      responses: { '200': { description: 'OK', schema: ref } },
      'x-kubernetes-action': verb,
      'x-kubernetes-group-version-kind': { group: type.group, version: type.version, kind: type.kind },
    });
    const { base, item } = kindPaths(type);
    const scope = type.namespaced ? [namespace] : [];
    paths[base] = { post: op('post'), parameters: scope };
    paths[item] = {
      put: op('put'),
      patch: op('patch'),
      parameters: [pathParameter('name', `name of the ${type.kind}`), ...scope],
    };
  }
  return { swagger: '2.0', info: { title: 'Kubernetes', version: KUBERNETES_VERSION.gitVersion }, paths, definitions };
}

export { apiVersionOf };
