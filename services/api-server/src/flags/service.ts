import type pg from 'pg';
import { FLAGS, resolveFlag } from '@gsp/flags-client';
import type { FlagDefinition, FlagSource, FlagsClient } from '@gsp/flags-client';
import { FLAG_UPDATED_EVENT, platformResource, readFlagRows } from '@gsp/platform-contract';
import type { FlagEvent, FlagEventScope, FlagRow } from '@gsp/platform-contract';
import { withTransaction } from '../db/tx.js';
import { appendAuditLog } from '../audit-log/store.js';
import { enqueueEvent } from '@gsp/platform-contract';
import { lockFlagScope, scopeKey, storeFlagValue } from './store.js';

export interface WriteResult {
  key: string;
  scope: FlagEventScope;
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
  scope: FlagEventScope;
  /** null clears the stored value. */
  value: boolean | null;
  actor: string;
  requestId: string;
}

/** The stored boolean of `flag` at one scope (`clusterId` null: the platform default). */
function storedValue(rows: readonly FlagRow[], flag: FlagDefinition, clusterId: string | null): boolean | undefined {
  const value = rows.find((r) => r.flag_key === flag.key && r.cluster_id === clusterId)?.value;
  return typeof value === 'boolean' ? value : undefined;
}

export class FlagService {
  constructor(
    private readonly pool: pg.Pool,
    private readonly client: FlagsClient,
    /** Env pins by flag key, as the config read them. */
    private readonly pins: ReadonlyMap<string, boolean>,
    private readonly platformId: string,
  ) {}

  /** Reads through the cached flags client, which this process's writes invalidate at once. */
  async list(scope: FlagEventScope): Promise<FlagListItem[]> {
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
   * Stores or clears a value together with its audit log entry and outbox event, in one
   * transaction, under the scope's lock. While the flag is pinned by the environment the write is
   * still stored, but inert.
   */
  async write(req: WriteRequest): Promise<WriteResult> {
    const { flag, value, actor } = req;
    const clusterId = req.scope.type === 'cluster' ? req.scope.clusterId : undefined;
    // The event names the platform it was written on; the answer echoes the scope as asked.
    const scope: FlagEventScope =
      req.scope.type === 'platform' ? { type: 'platform', platformId: this.platformId } : req.scope;
    const result = await withTransaction(this.pool, async (tx) => {
      await lockFlagScope(tx, flag.key, scope);
      await storeFlagValue(tx, flag.key, scope, value, actor);
      await appendAuditLog(tx, {
        action: value === null ? 'featureflags.cleared' : 'featureflags.set',
        actor,
        resource: scope.type === 'platform' ? platformResource(this.platformId) : `cluster:${scope.clusterId}`,
        org: scope.type === 'cluster' ? scope.org : undefined,
        details: { flag: flag.key, scope, value },
        requestId: req.requestId,
      });
      const event: FlagEvent = { flag: flag.key, actor, scope, value };
      await enqueueEvent(tx, FLAG_UPDATED_EVENT, scopeKey(scope), event);
      // The effective value at this scope also depends on the other scope's row, read in the same transaction.
      const rows = await readFlagRows(tx, clusterId);
      const platform = storedValue(rows, flag, null);
      const cluster = clusterId === undefined ? undefined : storedValue(rows, flag, clusterId);
      const {
        value: effective,
        source,
        envPinned,
      } = resolveFlag(flag, { env: this.pins.get(flag.key), platform, cluster });
      return { key: flag.key, scope: req.scope, value, effective, source, envPinned };
    });
    // Read-your-writes in this process; other processes learn it from the relay.
    this.client.invalidate(req.scope, flag.key);
    return result;
  }
}
