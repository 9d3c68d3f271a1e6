import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import {
  ACCESS_CHANGED_EVENT,
  agentPresence,
  agentSinceSql,
  CLUSTER_REGISTERED_EVENT,
  hashAgentToken,
  newAgentToken,
} from '@gsp/platform-contract';
import type { AccessEvent, AgentPresence, ClusterRegisteredEvent } from '@gsp/platform-contract';
import type { Queryable } from '../db/tx.js';
import { withTransaction } from '../db/tx.js';
import { NotFound } from '../errors.js';
import { appendAuditLog } from '../audit-log/store.js';
import { enqueueEvent } from '@gsp/platform-contract';

export interface Cluster {
  id: string;
  org: string;
  name: string;
  createdBy: string;
  createdAt: string;
}

interface ClusterRow {
  id: string;
  org: string;
  name: string;
  created_by: string;
  created_at: Date;
}

const COLUMNS = 'id, org, name, created_by, created_at';
const toCluster = (r: ClusterRow): Cluster => ({
  id: r.id,
  org: r.org,
  name: r.name,
  createdBy: r.created_by,
  createdAt: r.created_at.toISOString(),
});

/** A cluster as its reads answer it: with its agent's presence (live proxy leases only). */
export interface ClusterWithAgent extends Cluster {
  agent: AgentPresence;
}

/** The columns plus the agent's `since`, read in the same query (one indexed subquery per row). */
const WITH_AGENT = `${COLUMNS}, ${agentSinceSql('clusters.id')} AS agent_since`;
const toClusterWithAgent = (r: ClusterRow & { agent_since: Date | null }): ClusterWithAgent => ({
  ...toCluster(r),
  agent: agentPresence(r.agent_since),
});

export async function findCluster(db: Queryable, org: string, id: string): Promise<Cluster | undefined> {
  const { rows } = await db.query<ClusterRow>(`SELECT ${COLUMNS} FROM clusters WHERE org = $1 AND id = $2`, [org, id]);
  return rows[0] && toCluster(rows[0]);
}

/** The cluster, or a 404 naming it and its tenant. */
export async function existingCluster(db: Queryable, org: string, id: string): Promise<Cluster> {
  const cluster = await findCluster(db, org, id);
  if (!cluster) throw new NotFound(`cluster ${id} not found in tenant ${org}`);
  return cluster;
}

/** The cluster with its agent's presence, or a 404 naming it and its tenant. */
export async function readCluster(db: Queryable, org: string, id: string): Promise<ClusterWithAgent> {
  const { rows } = await db.query<ClusterRow & { agent_since: Date | null }>(
    `SELECT ${WITH_AGENT} FROM clusters WHERE org = $1 AND id = $2`,
    [org, id],
  );
  if (!rows[0]) throw new NotFound(`cluster ${id} not found in tenant ${org}`);
  return toClusterWithAgent(rows[0]);
}

/** The tenant's clusters by name, each with its agent's presence, in one query. */
export async function listClusters(db: Queryable, org: string): Promise<ClusterWithAgent[]> {
  const { rows } = await db.query<ClusterRow & { agent_since: Date | null }>(
    `SELECT ${WITH_AGENT} FROM clusters WHERE org = $1 ORDER BY name`,
    [org],
  );
  return rows.map(toClusterWithAgent);
}

export class DuplicateClusterError extends Error {}

/** Registers a cluster; the agent token is returned once and only its hash is stored. */
export async function registerCluster(
  pool: pg.Pool,
  org: string,
  name: string,
  actor: string,
  requestId: string,
): Promise<Cluster & { agentToken: string }> {
  const id = randomUUID();
  const agentToken = newAgentToken();
  try {
    return await withTransaction(pool, async (tx) => {
      const { rows } = await tx.query<ClusterRow>(
        'INSERT INTO clusters (id, org, name, agent_token_hash, created_by) ' +
          `VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
        [id, org, name, hashAgentToken(agentToken), actor],
      );
      const resource = `cluster:${id}`;
      await appendAuditLog(tx, {
        action: 'clusters.registered',
        actor,
        resource,
        org,
        details: { org, name },
        requestId,
      });
      const event: ClusterRegisteredEvent = { org, clusterId: id, name, actor };
      await enqueueEvent(tx, CLUSTER_REGISTERED_EVENT, resource, event);
      return { ...toCluster(rows[0]!), agentToken };
    });
  } catch (err) {
    if ((err as { code?: string }).code === '23505')
      throw new DuplicateClusterError(`a cluster named ${name} already exists in tenant ${org}`);
    throw err;
  }
}

/** The proxy closes the cluster's tunnel and refuses kubectl for it when this commits. */
export async function deleteCluster(
  pool: pg.Pool,
  org: string,
  id: string,
  actor: string,
  requestId: string,
): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    const { rowCount } = await tx.query('DELETE FROM clusters WHERE org = $1 AND id = $2', [org, id]);
    if (rowCount === 0) return false;
    await appendAuditLog(tx, {
      action: 'clusters.deleted',
      actor,
      resource: `cluster:${id}`,
      org,
      details: { org },
      requestId,
    });
    const event: AccessEvent = { kind: 'cluster-deleted', org, clusterId: id, actor };
    await enqueueEvent(tx, ACCESS_CHANGED_EVENT, `cluster:${id}`, event);
    return true;
  });
}

/**
 * Replaces the cluster's agent token; the new one is returned once. The old token stops
 * authenticating at commit, and the proxy closes the tunnel it opened when the event arrives.
 */
export async function rotateAgentToken(
  pool: pg.Pool,
  org: string,
  id: string,
  actor: string,
  requestId: string,
): Promise<(Cluster & { agentToken: string }) | undefined> {
  const agentToken = newAgentToken();
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<ClusterRow>(
      `UPDATE clusters SET agent_token_hash = $3 WHERE org = $1 AND id = $2 RETURNING ${COLUMNS}`,
      [org, id, hashAgentToken(agentToken)],
    );
    if (!rows[0]) return undefined;
    const resource = `cluster:${id}`;
    await appendAuditLog(tx, {
      action: 'clusters.agent_token.rotated',
      actor,
      resource,
      org,
      details: { org },
      requestId,
    });
    const event: AccessEvent = { kind: 'agent-token-rotated', org, clusterId: id, actor };
    await enqueueEvent(tx, ACCESS_CHANGED_EVENT, `cluster:${id}`, event);
    return { ...toCluster(rows[0]), agentToken };
  });
}
