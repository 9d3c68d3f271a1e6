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

/** What a write stores beside its value. */
export interface WriteRecord {
  actor: string;
  actorRole: string;
  reason: string | null;
  /** Epoch milliseconds; null: until changed. */
  expiresAt: number | null;
}

/**
 * Stores `value` at `scope` with its record, or clears it when null. (Reads are `readFlagRows` of
 * @gsp/platform-contract.)
 */
export async function storeFlagValue(
  tx: Queryable,
  flagKey: string,
  scope: FlagEventScope,
  value: boolean | null,
  record: WriteRecord,
): Promise<void> {
  const clusterId = scope.type === 'cluster' ? scope.clusterId : null;
  if (value === null) {
    await tx.query('DELETE FROM feature_flags WHERE flag_key = $1 AND cluster_id IS NOT DISTINCT FROM $2', [
      flagKey,
      clusterId,
    ]);
    return;
  }
  const expiresAt = record.expiresAt === null ? null : new Date(record.expiresAt);
  const values = [flagKey, clusterId, JSON.stringify(value), record.actor, record.actorRole, record.reason, expiresAt];
  const updated = await tx.query(
    'UPDATE feature_flags SET value = $3, updated_by = $4, updated_at = now(), ' +
      `actor_role = $5, reason = $6, expires_at = $7
      WHERE flag_key = $1 AND cluster_id IS NOT DISTINCT FROM $2`,
    values,
  );
  if (updated.rowCount === 0) {
    await tx.query(
      `INSERT INTO feature_flags (flag_key, scope_type, cluster_id, value, updated_by, actor_role, reason, expires_at)
       VALUES ($1, $8, $2, $3, $4, $5, $6, $7)`,
      [...values, scope.type],
    );
  }
}
