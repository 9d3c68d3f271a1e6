/**
 * `meta.k8s.io/v1` Table responses, which `kubectl get` asks for to print its default output.
 */
import type { KubeObject, ResourceType } from './api/registry.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** True when the Accept header asks for a Table (`application/json;as=Table;v=v1;g=meta.k8s.io`). */
export function wantsTable(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const params = part.split(';').map((p) => p.trim());
    return params.includes('as=Table') && params.includes('g=meta.k8s.io');
  });
}

export function toTable(
  type: ResourceType,
  objects: KubeObject[],
  options: {
    includeObject?: IncludeObject;
    resourceVersion?: string;
    continue?: string;
    remainingItemCount?: number;
    noHeaders?: boolean;
  },
): object {
  const now = new Date();
  const include = options.includeObject ?? 'Metadata';
  const metadata: Record<string, unknown> = {};
  if (options.resourceVersion) metadata.resourceVersion = options.resourceVersion;
  if (options.continue) metadata.continue = options.continue;
  if (options.remainingItemCount !== undefined) metadata.remainingItemCount = options.remainingItemCount;
  const table: Record<string, unknown> = { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata };
  table.columnDefinitions = options.noHeaders
    ? null
    : type.columns.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description,
        priority: c.priority ?? 0,
      }));
  table.rows = objects.map((obj) => {
    const row: Record<string, unknown> = { cells: type.columns.map((c) => c.cell(obj, now)) };
    if (include === 'Object') row.object = obj;
    else if (include === 'Metadata')
      row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
    return row;
  });
  return table;
}
