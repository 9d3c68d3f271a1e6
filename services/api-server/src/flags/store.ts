import type { FlagEventScope } from '@gsp/platform-contract';
import type { Queryable } from '../db/tx.js';

/** Groups the writes (and outbox events) of one scope: `platform` or `cluster:<id>`. */
export function scopeKey(scope: FlagEventScope): string {
  return scope.type === 'platform' ? 'platform' : `cluster:${scope.clusterId}`;
}

/**
 * Serialises writes to one flag at one scope until the transaction ends, so audit and outbox ids
 * follow commit order and the last audit row is the value that stands.
 */
export async function lockFlagScope(tx: Queryable, flagKey: string, scope: FlagEventScope): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`featureflags:${flagKey}:${scopeKey(scope)}`]);
}

/** Stores `value` at `scope`, or clears it when null. (Reads are `readFlagRows` of @gsp/platform-contract.) */
export async function storeFlagValue(
  tx: Queryable,
  flagKey: string,
  scope: FlagEventScope,
  value: boolean | null,
  actor: string,
): Promise<void> {
  const clusterId = scope.type === 'cluster' ? scope.clusterId : null;
  if (value === null) {
    await tx.query('DELETE FROM feature_flags WHERE flag_key = $1 AND cluster_id IS NOT DISTINCT FROM $2', [
      flagKey,
      clusterId,
    ]);
    return;
  }
  const updated = await tx.query(
    'UPDATE feature_flags SET value = $3, updated_by = $4, updated_at = now() WHERE flag_key = $1 AND cluster_id IS NOT DISTINCT FROM $2',
    [flagKey, clusterId, JSON.stringify(value), actor],
  );
  if (updated.rowCount === 0) {
    await tx.query(
      'INSERT INTO feature_flags (flag_key, scope_type, cluster_id, value, updated_by) VALUES ($1, $2, $3, $4, $5)',
      [flagKey, scope.type, clusterId, JSON.stringify(value), actor],
    );
  }
}
