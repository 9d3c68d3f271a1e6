import type pg from 'pg';
import { FLAGS, findFlag, resolveFlag } from '@gsp/flags-client';
import type { DetailedEvaluation, FlagDefinition, FlagSource, FlagsClient } from '@gsp/flags-client';
import {
  enqueueEvent,
  EXPIRY_ACTOR,
  FLAG_UPDATED_EVENT,
  platformResource,
  readFlagRows,
  switchRecordOf,
} from '@gsp/platform-contract';
import type { FlagEvent, FlagEventScope, FlagRow, SwitchRecord } from '@gsp/platform-contract';
import type { Queryable } from '../db/tx.js';
import { withTransaction } from '../db/tx.js';
import { appendAuditLog } from '../audit-log/store.js';
import { lockFlagScope, scopeKey, storeFlagValue } from './store.js';
import { recordJson } from './record.js';
import type { RecordJson } from './record.js';

export interface WriteResult {
  key: string;
  scope: FlagEventScope;
  value: boolean | null;
  effective: boolean;
  source: FlagSource;
  envPinned: boolean;
  platformRecord: RecordJson | null;
  clusterRecord?: RecordJson | null;
}

export interface FlagListItem {
  key: string;
  value: boolean;
  platformDefault: boolean | null;
  clusterOverride?: boolean | null;
  source: FlagSource;
  envPinned: boolean;
  platformRecord: RecordJson | null;
  clusterRecord?: RecordJson | null;
}

export interface WriteRequest {
  flag: FlagDefinition;
  scope: FlagEventScope;
  /** null clears the stored value. */
  value: boolean | null;
  actor: string;
  /** `platform-admin` or the actor's tenant role. */
  actorRole: string;
  reason?: string | undefined;
  /** Epoch milliseconds. */
  expiresAt?: number | undefined;
  requestId: string;
  /** Whether the caller may see platform admins' subjects in the answer. */
  callerIsPlatformAdmin: boolean;
}

const iso = (ms: number | null | undefined): string | null => (ms == null ? null : new Date(ms).toISOString());

/** One flag of a list: the effective value, what is stored at each scope, and its records as `admin` may see them. */
function itemOf(key: string, scope: FlagEventScope, r: DetailedEvaluation, admin: boolean): FlagListItem {
  const item: FlagListItem = {
    key,
    value: r.value,
    platformDefault: r.platformValue ?? null,
    source: r.source,
    envPinned: r.envPinned,
    platformRecord: recordJson(r.platformRecord, admin),
  };
  if (scope.type === 'cluster') {
    item.clusterOverride = r.clusterValue ?? null;
    item.clusterRecord = recordJson(r.clusterRecord, admin);
  }
  return item;
}

/** Whether a record would be shown without its actor to someone who is not a platform admin. */
const hidesActor = (record: SwitchRecord | undefined): boolean =>
  record !== undefined && recordJson(record, false)?.actor === null;

export class FlagService {
  private readonly platformFlags = FLAGS.filter((flag) => flag.scopes.includes('platform'));
  private readonly clusterFlags = FLAGS.filter((flag) => flag.scopes.includes('cluster'));

  constructor(
    private readonly pool: pg.Pool,
    private readonly client: FlagsClient,
    /** Env pins by flag key, as the config read them. */
    private readonly pins: ReadonlyMap<string, boolean>,
    private readonly platformId: string,
  ) {}

  /** Reads through the cached flags client, which this process's writes invalidate at once. */
  async list(scope: FlagEventScope, callerIsPlatformAdmin: boolean): Promise<FlagListItem[]> {
    const clusterId = scope.type === 'cluster' ? scope.clusterId : undefined;
    return Promise.all(
      this.flagsAt(scope).map(async (flag) =>
        itemOf(flag.key, scope, await this.client.evaluateDetailed(flag.key, { clusterId }), callerIsPlatformAdmin),
      ),
    );
  }

  /**
   * The list from memory, without a promise, when every value is cached and fresh; `undefined`
   * otherwise (then `list`), and also when a record names a platform admin, whose name depends on
   * who asks, and `callerIsPlatformAdmin` is not known.
   */
  listFromMemory(scope: FlagEventScope, callerIsPlatformAdmin: boolean | undefined): FlagListItem[] | undefined {
    const clusterId = scope.type === 'cluster' ? scope.clusterId : undefined;
    const items: FlagListItem[] = [];
    for (const flag of this.flagsAt(scope)) {
      const r = this.client.peekDetailed(flag.key, { clusterId });
      if (r === undefined) return undefined;
      if (callerIsPlatformAdmin === undefined && (hidesActor(r.platformRecord) || hidesActor(r.clusterRecord)))
        return undefined;
      items.push(itemOf(flag.key, scope, r, callerIsPlatformAdmin ?? false));
    }
    return items;
  }

  private flagsAt(scope: FlagEventScope): FlagDefinition[] {
    return scope.type === 'platform' ? this.platformFlags : this.clusterFlags;
  }

  /** The audit row and the outbox event of one committed change, in the caller's transaction. */
  private async announce(tx: Queryable, scope: FlagEventScope, event: FlagEvent, requestId?: string): Promise<void> {
    await appendAuditLog(tx, {
      action: event.value === null ? 'featureflags.cleared' : 'featureflags.set',
      actor: event.actor,
      resource: scope.type === 'platform' ? platformResource(this.platformId) : `cluster:${scope.clusterId}`,
      org: scope.type === 'cluster' ? scope.org : undefined,
      details: {
        flag: event.flag,
        scope,
        value: event.value,
        ...(event.reason != null ? { reason: event.reason } : {}),
        ...(event.expiresAt != null ? { expiresAt: event.expiresAt } : {}),
        ...(event.cause === 'expiry' ? { cause: 'expiry' } : {}),
      },
      requestId,
    });
    await enqueueEvent(tx, FLAG_UPDATED_EVENT, scopeKey(scope), event);
  }

  /**
   * Stores or clears a value with its record, together with its audit log entry and outbox event,
   * in one transaction, under the scope's lock. While the flag is pinned by the environment the
   * write is still stored, but inert.
   */
  async write(req: WriteRequest): Promise<WriteResult> {
    const { flag, value, actor, actorRole } = req;
    const clusterId = req.scope.type === 'cluster' ? req.scope.clusterId : undefined;
    // The event names the platform it was written on; the answer echoes the scope as asked.
    const scope: FlagEventScope =
      req.scope.type === 'platform' ? { type: 'platform', platformId: this.platformId } : req.scope;
    const reason = value === null ? null : (req.reason ?? null);
    const expiresAt = value === null ? null : (req.expiresAt ?? null);
    const result = await withTransaction(this.pool, async (tx) => {
      await lockFlagScope(tx, flag.key, scope);
      await storeFlagValue(tx, flag.key, scope, value, { actor, actorRole, reason, expiresAt });
      // The effective value at this scope also depends on the other scope's row, read in the same transaction.
      const rows = (await readFlagRows(tx, clusterId)).filter((r) => r.flag_key === flag.key);
      const platformRecord = switchRecordOf(rows.find((r) => r.cluster_id === null));
      const clusterRecord =
        clusterId === undefined ? undefined : switchRecordOf(rows.find((r) => r.cluster_id === clusterId));
      const written = clusterId === undefined ? platformRecord : clusterRecord;
      const event: FlagEvent = {
        flag: flag.key,
        actor,
        actorRole,
        scope,
        value,
        setAt: iso(written?.setAt) ?? new Date().toISOString(),
        reason,
        expiresAt: iso(expiresAt),
        cause: 'request',
      };
      await this.announce(tx, scope, event, req.requestId);
      const {
        value: effective,
        source,
        envPinned,
      } = resolveFlag(flag, {
        env: this.pins.get(flag.key),
        platform: platformRecord?.value,
        cluster: clusterRecord?.value,
      });
      const answer: WriteResult = {
        key: flag.key,
        scope: req.scope,
        value,
        effective,
        source,
        envPinned,
        platformRecord: recordJson(platformRecord, req.callerIsPlatformAdmin),
      };
      if (clusterId !== undefined) answer.clusterRecord = recordJson(clusterRecord, req.callerIsPlatformAdmin);
      return answer;
    });
    // Read-your-writes in this process; other processes learn it from the relay.
    this.client.invalidate(req.scope, flag.key);
    return result;
  }

  /**
   * Clears every value whose `expiresAt` has passed, as a DELETE would: audit row
   * `featureflags.cleared` by `system:expiry`, outbox event, caches invalidated. Safe with several
   * replicas: the rows are claimed with `FOR UPDATE SKIP LOCKED`, so each is cleared by exactly one
   * transaction, and a concurrent write to the same row (which holds its row lock) is never
   * overtaken. Returns how many values were cleared.
   */
  async expireDue(limit = 100): Promise<number> {
    const cleared = await withTransaction(this.pool, async (tx) => {
      const { rows } = await tx.query<FlagRow & { org: string | null }>(
        'SELECT f.flag_key, f.cluster_id, f.value, f.updated_by, f.updated_at, f.reason, f.expires_at, ' +
          `f.actor_role, c.org
           FROM feature_flags f LEFT JOIN clusters c ON c.id = f.cluster_id
          WHERE f.expires_at <= now()
          ORDER BY f.expires_at
          LIMIT $1
          FOR UPDATE OF f SKIP LOCKED`,
        [limit],
      );
      const scopes: FlagEventScope[] = [];
      for (const row of rows) {
        await tx.query('DELETE FROM feature_flags WHERE flag_key = $1 AND cluster_id IS NOT DISTINCT FROM $2', [
          row.flag_key,
          row.cluster_id,
        ]);
        const scope: FlagEventScope =
          row.cluster_id === null
            ? { type: 'platform', platformId: this.platformId }
            : { type: 'cluster', org: row.org ?? '', clusterId: row.cluster_id };
        const event: FlagEvent = {
          flag: row.flag_key,
          actor: EXPIRY_ACTOR,
          actorRole: 'system',
          scope,
          value: null,
          setAt: new Date().toISOString(),
          reason: row.reason,
          expiresAt: iso(row.expires_at?.getTime()),
          cause: 'expiry',
        };
        await this.announce(tx, scope, event);
        scopes.push(scope);
      }
      return scopes.map((scope, i) => ({ scope, key: rows[i]!.flag_key }));
    });
    for (const { scope, key } of cleared) this.client.invalidate(scope, findFlag(key) ? key : undefined);
    return cleared.length;
  }

  /** Milliseconds until the next stored value expires, by the database's clock; undefined when none will. */
  async nextExpiryInMs(): Promise<number | undefined> {
    const { rows } = await this.pool.query<{ ms: number | null }>(
      'SELECT (extract(epoch FROM min(expires_at) - now()) * 1000)::float8 AS ms ' +
        'FROM feature_flags WHERE expires_at IS NOT NULL',
    );
    const ms = rows[0]?.ms;
    return ms === null || ms === undefined ? undefined : Math.max(0, ms);
  }
}
