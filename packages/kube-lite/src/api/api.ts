/**
 * The generic REST semantics of the Kubernetes API, independent of HTTP: create, get, list,
 * update, patch, delete and watch with the rules of the real API server's generic registry.
 */
import { randomUUID } from 'node:crypto';
import { admit, hasGeneration, warningsFor } from './admission.js';
import { checkApplyConfiguration } from './apply.js';
import { mergePatch, jsonPatch, strategicMergePatch, PatchError, type Json } from './patch.js';
import { RESOURCE_TYPES, apiVersionOf, typeKey, type KubeObject, type ResourceType } from './registry.js';
import type { SelectorError } from './selectors.js';
import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  type FieldRequirement,
  type LabelSelector,
} from './selectors.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  forbiddenNamespaceTerminating,
  gone,
  invalid,
  notFound,
  StatusError,
  successStatus,
  unsupportedMediaType,
  type Status,
} from './status.js';
import type { Store, StoreEvent } from './store.js';
import { labelValueErrors, nameErrors, qualifiedNameErrors } from './validation.js';

const NAMESPACES = RESOURCE_TYPES.find((t) => t.plural === 'namespaces' && t.group === '') as ResourceType;

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface WriteOptions {
  dryRun?: boolean;
  /** `status` to write only the status, `''` for the main resource. */
  subresource?: string;
  /** Collects the warnings the API server would send (`Warning` headers) for this write. */
  warnings?: string[];
}

export interface DeleteOptions {
  dryRun?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
}

export interface DeleteResult {
  /** The deleted (or deletion-pending) object, or a Success Status, as the real server answers. */
  body: KubeObject | Status;
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubeObject | Status;
}

export interface WatchOptions {
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  sendInitialEvents?: boolean;
  allowWatchBookmarks?: boolean;
}

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function randomSuffix(length = 5): string {
  let out = '';
  for (let i = 0; i < length; i++) out += GENERATE_ALPHABET[Math.floor(Math.random() * GENERATE_ALPHABET.length)];
  return out;
}

export function nowTimestamp(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Fields a field selector may name, per kind, with their values. */
function selectableFields(type: ResourceType, obj: KubeObject): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
  if (type.namespaced) fields['metadata.namespace'] = obj.metadata.namespace ?? '';
  if (type.plural === 'secrets' && !type.group) fields.type = String(obj.type ?? '');
  if (type.plural === 'pods' && !type.group) {
    fields['status.phase'] = String((obj.status as { phase?: string } | undefined)?.phase ?? '');
    fields['spec.nodeName'] = String((obj.spec as { nodeName?: string } | undefined)?.nodeName ?? '');
  }
  if (type.plural === 'namespaces' && !type.group)
    fields['status.phase'] = String((obj.status as { phase?: string } | undefined)?.phase ?? '');
  return fields;
}

interface Filter {
  labels: LabelSelector;
  fields: FieldRequirement[];
  namespace: string | undefined;
}

export class Api {
  constructor(readonly store: Store) {}

  private filter(type: ResourceType, namespace: string | undefined, labelSelector = '', fieldSelector = ''): Filter {
    let labels: LabelSelector;
    let fields: FieldRequirement[];
    try {
      labels = parseLabelSelector(labelSelector);
    } catch (err) {
      throw badRequest(`unable to parse requirement: ${(err as Error).message}`);
    }
    try {
      fields = parseFieldSelector(fieldSelector);
    } catch (err) {
      throw badRequest((err as SelectorError).message);
    }
    const probe: KubeObject = { metadata: {} };
    const known = Object.keys(selectableFields(type, probe));
    for (const f of fields) {
      if (!known.includes(f.field)) throw badRequest(`field label not supported: ${f.field}`);
    }
    return { labels, fields, namespace };
  }

  private matches(type: ResourceType, filter: Filter, obj: KubeObject): boolean {
    if (filter.namespace !== undefined && obj.metadata.namespace !== filter.namespace) return false;
    return (
      matchesLabels(filter.labels, obj.metadata.labels) && matchesFields(filter.fields, selectableFields(type, obj))
    );
  }

  private decorate(type: ResourceType, obj: KubeObject): KubeObject {
    return { apiVersion: apiVersionOf(type), kind: type.kind, ...obj };
  }

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const obj = this.store.get(typeKey(type), type.namespaced ? namespace : undefined, name);
    if (!obj) throw notFound(type, name);
    return this.decorate(type, obj);
  }

  list(type: ResourceType, namespace: string | undefined, options: ListOptions = {}): ListResult {
    const filter = this.filter(type, namespace, options.labelSelector, options.fieldSelector);
    let start = '';
    let resourceVersion = String(this.store.resourceVersion);
    if (options.continue) {
      try {
        const token = JSON.parse(Buffer.from(options.continue, 'base64').toString('utf8')) as {
          rv?: unknown;
          start?: unknown;
        };
        if (typeof token.rv !== 'string' || typeof token.start !== 'string') throw new Error('bad token');
        start = token.start;
        resourceVersion = token.rv;
      } catch {
        throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
      }
      if (Number(resourceVersion) < this.store.oldestResumableVersion) {
        throw gone(
          'The provided continue parameter is too old to display a consistent list result. ' +
            'You can start a new list without the continue parameter, or use the continue token in this response ' +
            'to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent ' +
            'list - objects that were created, modified, or deleted between the time the first chunk was returned ' +
            'and now may show up in the list.',
        );
      }
    }
    const keyOf = (o: KubeObject): string =>
      o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name ?? ''}` : (o.metadata.name ?? '');
    const all = this.store
      .list(typeKey(type), type.namespaced ? namespace : undefined)
      .filter((o) => keyOf(o) > start || start === '')
      .filter((o) => this.matches(type, filter, o));
    const limit = options.limit && options.limit > 0 ? options.limit : undefined;
    if (limit === undefined || all.length <= limit) {
      return { items: all.map((o) => this.decorate(type, o)), resourceVersion };
    }
    const page = all.slice(0, limit);
    const last = page[page.length - 1] as KubeObject;
    const token = Buffer.from(
      JSON.stringify({ v: 'meta.k8s.io/v1', rv: resourceVersion, start: keyOf(last) }),
    ).toString('base64');
    return {
      items: page.map((o) => this.decorate(type, o)),
      resourceVersion,
      continue: token,
      remainingItemCount: all.length - limit,
    };
  }

  private checkMeta(
    type: ResourceType,
    obj: KubeObject,
    bodyNamespace: string | undefined,
    urlNamespace: string | undefined,
  ): void {
    const expected = apiVersionOf(type);
    if (obj.apiVersion !== undefined && obj.apiVersion !== expected) {
      throw badRequest(
        `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`,
      );
    }
    if (obj.kind !== undefined && obj.kind !== type.kind) {
      throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${type.kind})`);
    }
    if (type.namespaced && bodyNamespace && urlNamespace && bodyNamespace !== urlNamespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  }

  private validate(
    type: ResourceType,
    obj: KubeObject,
    extra: { field: string; value: unknown; detail: string; reason?: string }[],
  ): void {
    const name = obj.metadata.name ?? '';
    const causes = [...extra];
    for (const detail of nameErrors(type.nameRule, name))
      causes.unshift({ field: 'metadata.name', value: name, detail });
    for (const [key, value] of Object.entries(obj.metadata.labels ?? {})) {
      for (const detail of qualifiedNameErrors(key)) causes.push({ field: 'metadata.labels', value: key, detail });
      if (typeof value !== 'string') causes.push({ field: `metadata.labels`, value, detail: 'must be a string' });
      else for (const detail of labelValueErrors(value)) causes.push({ field: 'metadata.labels', value, detail });
    }
    for (const key of Object.keys(obj.metadata.annotations ?? {})) {
      for (const detail of qualifiedNameErrors(key)) causes.push({ field: 'metadata.annotations', value: key, detail });
    }
    if (causes.length) throw invalid(type, name, causes);
  }

  private checkNamespace(type: ResourceType, namespace: string | undefined, name: string): void {
    if (!type.namespaced) return;
    const ns = this.store.get(typeKey(NAMESPACES), undefined, namespace ?? '');
    if (!ns) throw notFound(NAMESPACES, namespace ?? '');
    if (ns.metadata.deletionTimestamp) throw forbiddenNamespaceTerminating(type, name, namespace ?? '');
  }

  create(type: ResourceType, namespace: string | undefined, body: unknown, options: WriteOptions = {}): KubeObject {
    const obj = asObject(body);
    this.checkMeta(type, obj, obj.metadata.namespace, namespace);
    const meta = obj.metadata;
    if (type.namespaced) meta.namespace = namespace ?? meta.namespace;
    else delete meta.namespace;
    // As the API server's name generator: the prefix is cut to 58 characters, so the name stays a 63-character label.
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName.slice(0, 58)}${randomSuffix()}`;
    if (!meta.name) {
      throw invalid(type, '', [
        {
          field: 'metadata.name',
          value: undefined,
          detail: 'name or generateName is required',
          reason: 'FieldValueRequired',
        },
      ]);
    }
    const problems = admit(type, obj, undefined);
    this.validate(type, obj, problems);
    options.warnings?.push(...warningsFor(type, obj, undefined));
    this.checkNamespace(type, meta.namespace, meta.name);
    if (this.store.get(typeKey(type), meta.namespace, meta.name)) throw alreadyExists(type, meta.name);
    meta.uid = randomUUID();
    meta.creationTimestamp = nowTimestamp();
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (hasGeneration(type)) meta.generation = 1;
    else delete meta.generation;
    const decorated = this.decorate(type, obj);
    if (options.dryRun) return decorated;
    return this.decorate(type, this.store.create(typeKey(type), decorated));
  }

  update(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: WriteOptions = {},
  ): KubeObject {
    const obj = asObject(body);
    this.checkMeta(type, obj, obj.metadata.namespace, namespace);
    const ns = type.namespaced ? namespace : undefined;
    if (obj.metadata.name !== undefined && obj.metadata.name !== name) {
      throw badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
    }
    const current = this.store.get(typeKey(type), ns, name);
    if (!current) throw notFound(type, name);
    if (obj.metadata.resourceVersion && obj.metadata.resourceVersion !== current.metadata.resourceVersion)
      throw conflict(type, name);
    if (obj.metadata.uid && obj.metadata.uid !== current.metadata.uid) {
      throw conflict(
        type,
        name,
        `Precondition failed: UID in precondition: ${obj.metadata.uid}, UID in object meta: ${current.metadata.uid}`,
      );
    }

    let next: KubeObject;
    if (options.subresource === 'status') {
      next = { ...current, status: obj.status };
    } else {
      next = { ...obj, metadata: { ...obj.metadata } };
      if (type.statusSubresource) {
        if (current.status === undefined) delete next.status;
        else next.status = current.status;
      }
    }
    const meta = next.metadata;
    meta.name = name;
    if (ns) meta.namespace = ns;
    else delete meta.namespace;
    meta.uid = current.metadata.uid as string;
    meta.creationTimestamp = current.metadata.creationTimestamp as string;
    if (current.metadata.deletionTimestamp) meta.deletionTimestamp = current.metadata.deletionTimestamp;
    else delete meta.deletionTimestamp;
    if (current.metadata.deletionGracePeriodSeconds !== undefined)
      meta.deletionGracePeriodSeconds = current.metadata.deletionGracePeriodSeconds;
    else delete meta.deletionGracePeriodSeconds;
    if (options.subresource === 'status') next.metadata = { ...current.metadata };
    const problems = options.subresource === 'status' ? [] : admit(type, next, current);
    this.validate(type, next, problems);
    if (options.subresource !== 'status') options.warnings?.push(...warningsFor(type, next, current));
    if (hasGeneration(type)) {
      meta.generation = current.metadata.generation ?? 1;
      if (specChanged(current, next)) meta.generation += 1;
    } else {
      delete meta.generation;
    }
    meta.resourceVersion = current.metadata.resourceVersion as string;
    const decorated = this.decorate(type, next);
    if (JSON.stringify(this.decorate(type, current)) === JSON.stringify(decorated)) return decorated;
    if (options.dryRun) return decorated;
    if (meta.deletionTimestamp && (meta.finalizers ?? []).length === 0 && !isNamespace(type)) {
      // The last finalizer is gone: the pending deletion completes now.
      this.store.update(typeKey(type), decorated);
      return this.decorate(type, this.store.remove(typeKey(type), ns, name) as KubeObject);
    }
    return this.decorate(type, this.store.update(typeKey(type), decorated));
  }

  patch(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    contentType: string,
    body: unknown,
    options: WriteOptions = {},
  ): KubeObject {
    const ns = type.namespaced ? namespace : undefined;
    const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    // Server-side apply converts what is applied to its typed form first, whether or not the object exists.
    if (mediaType === 'application/apply-patch+yaml') checkApplyConfiguration(type, body);
    const current = this.store.get(typeKey(type), ns, name);
    if (!current && mediaType !== 'application/apply-patch+yaml') throw notFound(type, name);
    const base = (current
      ? this.decorate(type, current)
      : { apiVersion: apiVersionOf(type), kind: type.kind, metadata: {} }) as unknown as Json;
    let patched: Json;
    try {
      switch (mediaType) {
        case 'application/merge-patch+json':
        case 'application/apply-patch+yaml':
          patched = mergePatch(base, body as Json);
          break;
        case 'application/json-patch+json':
          patched = jsonPatch(base, body);
          break;
        case 'application/strategic-merge-patch+json':
          if (type.custom) throw unsupportedMediaType(true);
          patched = strategicMergePatch(base, body as Json, type.mergeKeys);
          break;
        default:
          throw unsupportedMediaType(type.custom);
      }
    } catch (err) {
      if (err instanceof PatchError) {
        if (err.kind === 'Invalid') throw new StatusError(422, 'Invalid', err.message);
        throw badRequest(err.message);
      }
      throw err;
    }
    const obj = asObject(patched);
    if (!current) return this.create(type, namespace, { ...obj, metadata: { ...obj.metadata, name } }, options);
    // A patch only conflicts when it names a resourceVersion itself.
    const patchRv = (body as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion;
    if (mediaType !== 'application/json-patch+json' && patchRv === undefined)
      obj.metadata.resourceVersion = current.metadata.resourceVersion as string;
    if (mediaType === 'application/json-patch+json' && obj.metadata.resourceVersion === undefined)
      obj.metadata.resourceVersion = current.metadata.resourceVersion as string;
    return this.update(type, namespace, name, obj, options);
  }

  delete(type: ResourceType, namespace: string | undefined, name: string, options: DeleteOptions = {}): DeleteResult {
    const ns = type.namespaced ? namespace : undefined;
    const current = this.store.get(typeKey(type), ns, name);
    if (!current) throw notFound(type, name);
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== current.metadata.uid) {
      throw conflict(
        type,
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw conflict(
        type,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ` +
          `ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
      );
    }
    const pending = (current.metadata.finalizers ?? []).length > 0 || isNamespace(type) || isPod(type);
    if (pending) {
      if (current.metadata.deletionTimestamp) return { body: this.decorate(type, current) };
      const marked: KubeObject = {
        ...current,
        metadata: { ...current.metadata, deletionTimestamp: nowTimestamp(), deletionGracePeriodSeconds: 0 },
      };
      if (isPod(type)) marked.metadata.deletionGracePeriodSeconds = options.gracePeriodSeconds ?? 30;
      if (isNamespace(type)) marked.status = { ...(marked.status as object), phase: 'Terminating' };
      if (options.dryRun) return { body: this.decorate(type, marked) };
      return { body: this.decorate(type, this.store.update(typeKey(type), marked)) };
    }
    if (options.dryRun)
      return { body: type.custom ? this.decorate(type, current) : successStatus(type, name, current.metadata.uid) };
    const removed = this.store.remove(typeKey(type), ns, name) as KubeObject;
    return { body: type.custom ? this.decorate(type, removed) : successStatus(type, name, removed.metadata.uid) };
  }

  /** Removes an object whose deletion was pending (namespaces, pods), as their controllers do. */
  finalizeDeletion(type: ResourceType, namespace: string | undefined, name: string): void {
    this.store.remove(typeKey(type), type.namespaced ? namespace : undefined, name);
  }

  /**
   * Starts a watch. Events go to `send`; returns a function that stops it. Throws a
   * StatusError for bad selectors; a too old resourceVersion yields an ERROR event (410).
   */
  watch(
    type: ResourceType,
    namespace: string | undefined,
    options: WatchOptions,
    send: (event: WatchEvent) => void,
  ): { stop: () => void; expired: boolean } {
    const filter = this.filter(type, namespace, options.labelSelector, options.fieldSelector);
    const key = typeKey(type);
    const rvParam = options.resourceVersion ?? '';
    const deliver = (event: StoreEvent): void => {
      if (event.typeKey !== key) return;
      const nowMatches = this.matches(type, filter, event.object);
      const wasMatching = event.previous ? this.matches(type, filter, event.previous) : false;
      let kind: WatchEvent['type'] | undefined;
      if (event.type === 'MODIFIED')
        kind = nowMatches && wasMatching ? 'MODIFIED' : nowMatches ? 'ADDED' : wasMatching ? 'DELETED' : undefined;
      else kind = nowMatches ? event.type : undefined;
      if (kind) send({ type: kind, object: this.decorate(type, event.object) });
    };

    const initial = rvParam === '' || rvParam === '0' || options.sendInitialEvents === true;
    if (initial) {
      for (const obj of this.store.list(key, type.namespaced ? namespace : undefined)) {
        if (this.matches(type, filter, obj)) send({ type: 'ADDED', object: this.decorate(type, obj) });
      }
      if (options.sendInitialEvents && options.allowWatchBookmarks) {
        send({ type: 'BOOKMARK', object: this.bookmark(type, { 'k8s.io/initial-events-end': 'true' }) });
      }
    } else {
      const since = Number(rvParam);
      if (!Number.isInteger(since) || since < 0)
        throw badRequest(`resourceVersion: Invalid value: "${rvParam}": must be a non-negative integer`);
      const backlog = this.store.eventsSince(since);
      if (!backlog) {
        send({
          type: 'ERROR',
          object: gone(`too old resource version: ${since} (${this.store.oldestResumableVersion})`).toStatus(),
        });
        return { stop: () => undefined, expired: true };
      }
      for (const event of backlog) deliver(event);
    }
    const unsubscribe = this.store.subscribe(deliver);
    return { stop: unsubscribe, expired: false };
  }

  bookmark(type: ResourceType, annotations?: Record<string, string>): KubeObject {
    const metadata: KubeObject['metadata'] = { resourceVersion: String(this.store.resourceVersion) };
    if (annotations) metadata.annotations = annotations;
    return { apiVersion: apiVersionOf(type), kind: type.kind, metadata };
  }
}

function isNamespace(type: ResourceType): boolean {
  return type.group === '' && type.plural === 'namespaces';
}

function isPod(type: ResourceType): boolean {
  return type.group === '' && type.plural === 'pods';
}

function specChanged(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject): string => {
    const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
    return JSON.stringify(rest);
  };
  return strip(a) !== strip(b);
}

function asObject(body: unknown): KubeObject {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('the body of the request must be a JSON object');
  const obj = structuredClone(body) as KubeObject;
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) throw badRequest('metadata must be an object');
  return obj;
}
