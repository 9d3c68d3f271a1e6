/**
 * The part of server-side apply's typed conversion of an apply configuration that kube-lite
 * imitates: associative lists (`listMapKeys` in the registry) must name their key fields and
 * must not repeat a key. The API server's field manager converts the applied object with
 * structured-merge-diff (duplicates allowed only in the live object, never in what is applied)
 * and answers a failure as a plain error, which becomes a 500 Status without a reason:
 *
 *   failed to create typed patch object (default/web; apps/v1, Kind=Deployment):
 *   .spec.template.spec.containers[name="app"].env: duplicate entries for key [name="LOG_LEVEL"]
 *
 * (k8s.io/apimachinery managedfields/internal/structuredmerge.go and
 * sigs.k8s.io/structured-merge-diff typed/validate.go, helpers.go).
 */
import { apiVersionOf, type ResourceType } from './registry.js';
import { StatusError } from './status.js';

type Dict = Record<string, unknown>;
const isDict = (value: unknown): value is Dict => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Schema defaults of key fields, used when an element leaves them out (ports' `protocol`). */
const KEY_DEFAULTS: Record<string, unknown> = { protocol: 'TCP' };

/** structured-merge-diff's `value.ToString` of a key value: strings quoted, numbers and booleans bare. */
function keyValue(value: unknown): string {
  return value === null || value === undefined ? 'null' : JSON.stringify(value);
}

/**
 * The errors structured-merge-diff reports for `obj`'s associative lists, each as
 * `<field path>: <message>`, in document order.
 */
export function listKeyErrors(obj: unknown, listMapKeys: Record<string, readonly string[]>): string[] {
  const errors: string[] = [];
  const paths = Object.keys(listMapKeys);
  const below = (schemaPath: string): boolean => paths.some((p) => p === schemaPath || p.startsWith(`${schemaPath}.`));

  const visitObject = (value: Dict, schemaPath: string, printed: string): void => {
    for (const [field, child] of Object.entries(value)) {
      const childSchema = schemaPath ? `${schemaPath}.${field}` : field;
      if (!below(childSchema)) continue;
      const keys = listMapKeys[childSchema];
      if (keys && Array.isArray(child)) visitList(child, keys, childSchema, `${printed}.${field}`);
      else if (isDict(child)) visitObject(child, childSchema, `${printed}.${field}`);
    }
  };

  const visitList = (items: unknown[], keys: readonly string[], schemaPath: string, printed: string): void => {
    const seen = new Set<string>();
    for (const [index, item] of items.entries()) {
      let problem: string | undefined;
      if (item === null || item === undefined) problem = 'associative list with keys may not have a null element';
      else if (!isDict(item)) problem = 'associative list with keys may not have non-map elements';
      else {
        const missing = keys.find((key) => !(key in item) && !(key in KEY_DEFAULTS));
        if (missing !== undefined)
          problem =
            `associative list with keys has an element that omits key field "${missing}" ` +
            "(and doesn't have default value)";
      }
      if (problem !== undefined) {
        // The element cannot be named, so neither it nor the rest of the list is looked at.
        errors.push(`${printed}: element ${index}: ${problem}`);
        return;
      }
      const element = item as Dict;
      const name = `[${[...keys]
        .sort()
        .map((key) => `${key}=${keyValue(key in element ? element[key] : KEY_DEFAULTS[key])}`)
        .join(',')}]`;
      if (seen.has(name)) errors.push(`${printed}: duplicate entries for key ${name}`);
      seen.add(name);
      visitObject(element, schemaPath, `${printed}${name}`);
    }
  };

  if (isDict(obj)) visitObject(obj, '', '');
  return errors;
}

/**
 * Refuses an apply configuration as the API server's field manager does when its typed
 * conversion fails: a 500 with no reason whose message names the object and every problem.
 */
export function checkApplyConfiguration(type: ResourceType, body: unknown): void {
  if (!type.listMapKeys || !isDict(body)) return;
  // A body of another version or kind fails earlier, with its own error (see Api.checkMeta).
  if (body.apiVersion !== apiVersionOf(type) || body.kind !== type.kind) return;
  const errors = listKeyErrors(body, type.listMapKeys);
  if (errors.length === 0) return;
  const meta = isDict(body.metadata) ? body.metadata : {};
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const gvk = `${type.group}/${type.version}, Kind=${type.kind}`;
  const detail = errors.length === 1 ? (errors[0] as string) : ['errors:', ...errors].join('\n  ');
  throw new StatusError(
    500,
    '',
    `failed to create typed patch object (${text(meta.namespace)}/${text(meta.name)}; ${gvk}): ${detail}`,
  );
}
