/**
 * PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and the part of
 * Kubernetes' strategic merge patch our resources need (lists merged by key, `$patch`).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export class PatchError extends Error {
  constructor(
    message: string,
    readonly kind: 'BadRequest' | 'Invalid' | 'Conflict' = 'BadRequest',
  ) {
    super(message);
    this.name = 'PatchError';
  }
}

export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const result: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key] ?? null, value);
  }
  return result;
}

interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: Json;
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(`invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function getAt(doc: Json, tokens: string[]): Json | undefined {
  let current: Json | undefined = doc;
  for (const token of tokens) {
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isObject(current))
      current = Object.prototype.hasOwnProperty.call(current, token) ? current[token] : undefined;
    else return undefined;
  }
  return current;
}

function parentOf(doc: Json, tokens: string[], path: string): { parent: Json; last: string } {
  if (tokens.length === 0) throw new PatchError(`cannot operate on the document root at "${path}"`);
  const parent = getAt(doc, tokens.slice(0, -1));
  if (parent === undefined || (!Array.isArray(parent) && !isObject(parent))) {
    throw new PatchError(`doc is missing path: "${path}": missing value`);
  }
  return { parent, last: tokens[tokens.length - 1] as string };
}

function arrayIndex(arr: Json[], token: string, path: string, forInsert: boolean): number {
  if (forInsert && token === '-') return arr.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new PatchError(`invalid array index "${token}" in "${path}"`);
  const index = Number(token);
  if (index > arr.length || (!forInsert && index === arr.length))
    throw new PatchError(`index out of bounds at "${path}"`);
  return index;
}

function add(doc: Json, path: string, value: Json): Json {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const { parent, last } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, path, true), 0, value);
  else (parent as JsonObject)[last] = value;
  return doc;
}

function remove(doc: Json, path: string): { doc: Json; removed: Json } {
  const tokens = parsePointer(path);
  const { parent, last } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) {
    const index = arrayIndex(parent, last, path, false);
    const [removed] = parent.splice(index, 1);
    return { doc, removed: removed as Json };
  }
  const obj = parent as JsonObject;
  if (!Object.prototype.hasOwnProperty.call(obj, last))
    throw new PatchError(`Unable to remove nonexistent key: ${last}: missing value`);
  const removed = obj[last] as Json;
  delete obj[last];
  return { doc, removed };
}

export function jsonPatch(target: Json, operations: unknown): Json {
  if (!Array.isArray(operations)) throw new PatchError('json patch must be an array of operations');
  let doc = structuredClone(target);
  for (const raw of operations as Operation[]) {
    if (!isObject(raw as unknown) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw new PatchError('json patch operation must have "op" and "path"');
    }
    switch (raw.op) {
      case 'add':
        doc = add(doc, raw.path, structuredClone(raw.value ?? null));
        break;
      case 'remove':
        doc = remove(doc, raw.path).doc;
        break;
      case 'replace': {
        const tokens = parsePointer(raw.path);
        if (tokens.length === 0) {
          doc = structuredClone(raw.value ?? null);
          break;
        }
        doc = remove(doc, raw.path).doc;
        doc = add(doc, raw.path, structuredClone(raw.value ?? null));
        break;
      }
      case 'move': {
        if (raw.from === undefined) throw new PatchError('move operation requires "from"');
        const moved = remove(doc, raw.from);
        doc = add(moved.doc, raw.path, moved.removed);
        break;
      }
      case 'copy': {
        if (raw.from === undefined) throw new PatchError('copy operation requires "from"');
        const value = getAt(doc, parsePointer(raw.from));
        if (value === undefined) throw new PatchError(`copy from missing path "${raw.from}"`);
        doc = add(doc, raw.path, structuredClone(value));
        break;
      }
      case 'test': {
        const value = getAt(doc, parsePointer(raw.path));
        if (JSON.stringify(value) !== JSON.stringify(raw.value ?? null)) {
          throw new PatchError(`testing value ${raw.path} failed: test failed`, 'Invalid');
        }
        break;
      }
      default:
        throw new PatchError(`Unexpected kind: ${raw.op}`);
    }
  }
  return doc;
}

/**
 * Strategic merge patch: like a merge patch, except lists named in `mergeKeys` (dotted paths
 * without indexes, such as `spec.containers`) are merged element by element on their key,
 * `$patch: delete|replace` and `$setElementOrder/` / `$retainKeys` directives are honoured,
 * and `$deleteFromPrimitiveList/<field>` removes scalars.
 */
export function strategicMergePatch(
  target: Json,
  patch: Json,
  mergeKeys: Record<string, string> = {},
  path = '',
): Json {
  if (!isObject(patch)) return structuredClone(patch);
  if (patch.$patch === 'replace') {
    const { $patch: _ignored, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (patch.$patch === 'delete') return null;
  const result: JsonObject = isObject(target) ? { ...target } : {};
  const retainKeys = Array.isArray(patch.$retainKeys) ? (patch.$retainKeys as string[]) : undefined;
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith('$setElementOrder/')) continue;
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const current = result[field];
      if (Array.isArray(current) && Array.isArray(value)) {
        result[field] = current.filter((item) => !value.some((v) => JSON.stringify(v) === JSON.stringify(item)));
      }
      continue;
    }
    const childPath = path ? `${path}.${key}` : key;
    if (value === null) {
      delete result[key];
    } else if (Array.isArray(value) && mergeKeys[childPath] !== undefined) {
      result[key] = mergeList(result[key], value, mergeKeys[childPath] as string, mergeKeys, childPath);
    } else if (isObject(value)) {
      const merged = strategicMergePatch(result[key] ?? null, value, mergeKeys, childPath);
      if (merged === null) delete result[key];
      else result[key] = merged;
    } else {
      result[key] = structuredClone(value);
    }
  }
  if (retainKeys) for (const key of Object.keys(result)) if (!retainKeys.includes(key)) delete result[key];
  return result;
}

function mergeList(
  current: Json | undefined,
  patch: Json[],
  mergeKey: string,
  mergeKeys: Record<string, string>,
  path: string,
): Json[] {
  if (patch.some((item) => isObject(item) && item.$patch === 'replace')) {
    return patch.filter((item) => !(isObject(item) && item.$patch === 'replace')).map((item) => stripDirectives(item));
  }
  const result: Json[] = Array.isArray(current) ? structuredClone(current) : [];
  for (const item of patch) {
    if (!isObject(item)) {
      result.push(structuredClone(item));
      continue;
    }
    const index = result.findIndex((existing) => isObject(existing) && existing[mergeKey] === item[mergeKey]);
    if (item.$patch === 'delete') {
      if (index >= 0) result.splice(index, 1);
      continue;
    }
    if (index >= 0) result[index] = strategicMergePatch(result[index] as Json, item, mergeKeys, path);
    else result.push(stripDirectives(item));
  }
  return result;
}

function stripDirectives(value: Json): Json {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isObject(value)) return value;
  const result: JsonObject = {};
  for (const [key, inner] of Object.entries(value)) if (!key.startsWith('$')) result[key] = stripDirectives(inner);
  return result;
}
