import type pg from 'pg';
import { FLAGS, resolveFlag } from '@gsp/flags-client';
import type { FlagDefinition, FlagSource, FlagsClient } from '@gsp/flags-client';
import { withTransaction } from '../db/tx.js';
import type { Queryable } from '../db/tx.js';
import { insertAudit } from '../audit/store.js';
import { enqueueEvent } from '../outbox/enqueue.js';
import { FLAG_UPDATED_EVENT } from '@gsp/platform-contract';

export type FlagScope = { type: 'platform' } | { type: 'cluster'; org: string; clusterId: string };

export interface WriteResult {
  key: string;
  scope: FlagScope;
  value: boolean | null;
  effective: boolean;
  source: FlagSource;
  envPinned: boolean;
}

export interface FlagListItem {
  key: string;
  value: boolean;
  platformDefault: boolean | null;
  clusterOverride?: boolean | null;
  source: FlagSource;
  envPinned: boolean;
}

export interface WriteRequest {
  flag: FlagDefinition;
  scope: FlagScope;
  /** null clears the stored value. */
  value: boolean | null;
  actor: string;
  requestId: string;
}

export function scopeKey(scope: FlagScope): string {
  return scope.type === 'platform' ? 'platform' : `cluster:${scope.clusterId}`;
}

interface StoredRow {
  flag_key: string;
  cluster_id: string | null;
  value: boolean;
}

export class FlagService {
  constructor(
    private readonly pool: pg.Pool,
    private readonly client: FlagsClient,
    private readonly envPins: ReadonlyMap<string, boolean>,
    private readonly platformId: string,
  ) {}

  private async stored(db: Queryable, clusterId: string | undefined): Promise<StoredRow[]> {
    const { rows } = await db.query<StoredRow>(
      'SELECT flag_key, cluster_id, value FROM feature_flags WHERE cluster_id IS NULL OR cluster_id = $1',
      [clusterId ?? null],
    );
    return rows;
  }

  private resolve(flag: FlagDefinition, rows: readonly StoredRow[], clusterId: string | undefined) {
    const platform = rows.find((r) => r.flag_key === flag.key && r.cluster_id === null)?.value;
    const cluster =
      clusterId === undefined
        ? undefined
        : rows.find((r) => r.flag_key === flag.key && r.cluster_id === clusterId)?.value;
    return { platform, cluster, ...resolveFlag(flag, { env: this.envPins.get(flag.key), platform, cluster }) };
  }

  /** Reads through the cached flags client, which this process's writes invalidate at once. */
  async list(scope: FlagScope): Promise<FlagListItem[]> {
    const clusterId = scope.type === 'cluster' ? scope.clusterId : undefined;
    const flags = FLAGS.filter((flag) => flag.scopes.includes(scope.type));
    return Promise.all(
      flags.map(async (flag) => {
        const r = await this.client.evaluateDetailed(flag.key, { clusterId });
        const item: FlagListItem = {
          key: flag.key,
          value: r.value,
          platformDefault: r.platformValue ?? null,
          source: r.source,
          envPinned: r.envPinned,
        };
        if (scope.type === 'cluster') item.clusterOverride = r.clusterValue ?? null;
        return item;
      }),
    );
  }

  /**
   * Stores or clears a value together with its audit row and outbox event, in one transaction.
   * Writes to one flag and scope are serialised by an advisory lock held until commit, so audit
   * and outbox ids follow commit order and the last audit row is the value that stands.
   * While the flag is pinned by the environment the write is still stored, but inert.
   */
  async write(req: WriteRequest): Promise<WriteResult> {
    const clusterId = req.scope.type === 'cluster' ? req.scope.clusterId : null;
    const key = scopeKey(req.scope);
    const result = await withTransaction(this.pool, async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`featureflags:${req.flag.key}:${key}`]);
      if (req.value === null) {
        await tx.query('DELETE FROM feature_flags WHERE flag_key = $1 AND cluster_id IS NOT DISTINCT FROM $2', [
          req.flag.key,
          clusterId,
        ]);
      } else {
        const updated = await tx.query(
          'UPDATE feature_flags SET value = $3, updated_by = $4, updated_at = now() WHERE flag_key = $1 AND cluster_id IS NOT DISTINCT FROM $2',
          [req.flag.key, clusterId, JSON.stringify(req.value), req.actor],
        );
        if (updated.rowCount === 0) {
          await tx.query(
            'INSERT INTO feature_flags (flag_key, scope_type, cluster_id, value, updated_by) VALUES ($1, $2, $3, $4, $5)',
            [req.flag.key, req.scope.type, clusterId, JSON.stringify(req.value), req.actor],
          );
        }
      }
      const scope = req.scope.type === 'platform' ? { type: 'platform', platformId: this.platformId } : req.scope;
      await insertAudit(tx, {
        action: req.value === null ? 'featureflags.cleared' : 'featureflags.set',
        actor: req.actor,
        resource: req.scope.type === 'platform' ? `platform:${this.platformId}` : `cluster:${req.scope.clusterId}`,
        org: req.scope.type === 'cluster' ? req.scope.org : undefined,
        details: { flag: req.flag.key, scope, value: req.value },
        requestId: req.requestId,
      });
      await enqueueEvent(tx, FLAG_UPDATED_EVENT, key, {
        flag: req.flag.key,
        actor: req.actor,
        scope,
        value: req.value,
      });
      const r = this.resolve(req.flag, await this.stored(tx, clusterId ?? undefined), clusterId ?? undefined);
      return {
        key: req.flag.key,
        scope: req.scope,
        value: req.value,
        effective: r.value,
        source: r.source,
        envPinned: r.envPinned,
      };
    });
    // Read-your-writes in this process; other processes learn it from the relay.
    this.client.invalidate(req.scope.type === 'platform' ? { type: 'platform' } : req.scope, req.flag.key);
    return result;
  }
}
