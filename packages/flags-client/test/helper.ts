import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { CLI_ACCESS_ENABLED } from '@gsp/flags-client';
import type { EventBus } from '@gsp/events';
import { FLAG_UPDATED_EVENT } from '@gsp/platform-contract';
import type { FlagEventScope } from '@gsp/platform-contract';

type Tap = { teardown(fn: () => unknown): void };

export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A Redis channel prefix of its own per test, so parallel files never cross. */
export const redisPrefix = (): string => `t${randomBytes(5).toString('hex')}:`;

export const PLATFORM: FlagEventScope = { type: 'platform' };
export const cluster = (clusterId: string): FlagEventScope => ({ type: 'cluster', org: 'acme', clusterId });

/** What a write records beside the value (migration 003 of the API server). */
export interface StoredRecord {
  actor?: string;
  actorRole?: string;
  reason?: string;
  expiresAt?: Date;
}

export interface FlagStore {
  /** The store's connection string (its own schema on the search path). */
  url: string;
  /** Stores `cli_access.enabled` at `scope`, or clears it (null), as a committed write of the API server does. */
  set(scope: FlagEventScope, value: boolean | null, record?: StoredRecord): Promise<void>;
}

/**
 * A flag store of its own per test: a fresh schema with the `feature_flags` columns the client
 * reads (`readFlagRows` of @gsp/platform-contract). The API server owns the full table and its
 * migrations; this package cannot start one (the server depends on this package).
 */
export async function flagStore(t: Tap): Promise<FlagStore> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(
    `CREATE TABLE ${schema}.feature_flags (flag_key text NOT NULL, cluster_id text, value jsonb NOT NULL, ` +
      "updated_by text NOT NULL DEFAULT 'test', updated_at timestamptz NOT NULL DEFAULT now(), reason text, " +
      'expires_at timestamptz, actor_role text, UNIQUE NULLS NOT DISTINCT (flag_key, cluster_id))',
  );
  t.teardown(async () => {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  });
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async set(scope, value, record = {}) {
      const clusterId = scope.type === 'cluster' ? scope.clusterId : null;
      await admin.query(
        `DELETE FROM ${schema}.feature_flags WHERE flag_key = $1 AND cluster_id IS NOT DISTINCT FROM $2`,
        [CLI_ACCESS_ENABLED, clusterId],
      );
      if (value !== null)
        await admin.query(
          `INSERT INTO ${schema}.feature_flags (flag_key, cluster_id, value, updated_by, actor_role, reason, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [
            CLI_ACCESS_ENABLED,
            clusterId,
            JSON.stringify(value),
            record.actor ?? 'test',
            record.actorRole ?? null,
            record.reason ?? null,
            record.expiresAt ?? null,
          ],
        );
    },
  };
}

/** Announces a write of `cli_access.enabled` at `scope` on `bus`, as the API server's outbox relay does. */
export function announce(bus: EventBus, scope: FlagEventScope, value: boolean | null): Promise<void> {
  return bus.publish(FLAG_UPDATED_EVENT, { flag: CLI_ACCESS_ENABLED, actor: 'x', scope, value });
}
