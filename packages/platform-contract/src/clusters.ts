import { createHash, randomBytes } from 'node:crypto';
import type { QueryResult, QueryResultRow } from 'pg';
import type { RoleBinding } from './permissions.js';
import type { SwitchRecord } from './kubeconfig.js';

/** A `pg.Pool`, a pool client or a transaction: anything that runs one query. */
export interface Queryable {
  query<R extends QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}

/** Agent tokens are shown once at registration or rotation; only this hash is stored. */
export const hashAgentToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export const newAgentToken = (): string => `gspat_${randomBytes(32).toString('base64url')}`;

/** The cluster an agent token opens, if any. */
export async function clusterOfAgentToken(
  db: Queryable,
  token: string,
): Promise<{ id: string; org: string } | undefined> {
  const { rows } = await db.query<{ id: string; org: string }>(
    'SELECT id, org FROM clusters WHERE agent_token_hash = $1',
    [hashAgentToken(token)],
  );
  return rows[0];
}

/** What the proxy must know of a cluster to keep serving it: its tenant and its current agent token. */
export interface ClusterState {
  org: string;
  agentTokenHash: string;
}

/** `undefined` once the cluster is deleted. */
export async function readClusterState(db: Queryable, clusterId: string): Promise<ClusterState | undefined> {
  const { rows } = await db.query<{ org: string; agent_token_hash: string }>(
    'SELECT org, agent_token_hash FROM clusters WHERE id = $1',
    [clusterId],
  );
  const row = rows[0];
  return row && { org: row.org, agentTokenHash: row.agent_token_hash };
}

/** A subject's role bindings on the given resources (one indexed query). */
export async function readBindings(
  db: Queryable,
  subject: string,
  resources: readonly string[],
): Promise<RoleBinding[]> {
  const { rows } = await db.query<RoleBinding>(
    'SELECT role, resource FROM role_bindings WHERE subject = $1 AND resource = ANY($2)',
    [subject, resources],
  );
  return rows;
}

/** A stored flag value: a platform default (`cluster_id` null) or a cluster override, with its record. */
export interface FlagRow {
  flag_key: string;
  cluster_id: string | null;
  /** JSON as stored; readers use booleans only. */
  value: unknown;
  /** Who wrote it, and when. */
  updated_by: string;
  updated_at: Date;
  /** Why (migration 003); null when none was given or the row predates it. */
  reason: string | null;
  /** When it is cleared; null: until changed. */
  expires_at: Date | null;
  /** What the writer was: `platform-admin` or a tenant role; null for rows written before migration 003. */
  actor_role: string | null;
}

/** A stored row as a record (`SwitchRecord`); `undefined` for a value that is not a boolean. */
export function switchRecordOf(row: FlagRow | undefined): SwitchRecord | undefined {
  if (row === undefined || typeof row.value !== 'boolean') return undefined;
  return {
    value: row.value,
    actor: row.updated_by,
    actorRole: row.actor_role,
    setAt: row.updated_at.getTime(),
    reason: row.reason,
    expiresAt: row.expires_at === null ? null : row.expires_at.getTime(),
  };
}

/**
 * The platform defaults and one cluster's overrides (none when `clusterId` is undefined), with one
 * query. A row past its `expires_at` is left out: it no longer counts, even before the API server
 * has cleared it.
 */
export async function readFlagRows(db: Queryable, clusterId: string | undefined): Promise<FlagRow[]> {
  const { rows } = await db.query<FlagRow>(
    `SELECT flag_key, cluster_id, value, updated_by, updated_at, reason, expires_at, actor_role FROM feature_flags
      WHERE (cluster_id IS NULL OR cluster_id = $1) AND (expires_at IS NULL OR expires_at > now())`,
    [clusterId ?? null],
  );
  return rows;
}
