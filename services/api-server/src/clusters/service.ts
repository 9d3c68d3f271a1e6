import type pg from 'pg';
import type { FlagsClient } from '@gsp/flags-client';
import { cliAccessWithMessage, mayNamePlatformAdmin } from '../kubeconfig/access.js';
import type { CliAccessJson } from '../kubeconfig/access.js';
import { Conflict, NotFound } from '../errors.js';
import { platformAdminCheck } from '../flags/caller.js';
import { namedRecord } from '../flags/record.js';
import { SubjectNames } from '../subjects/names.js';
import type { PlatformAdminCheck } from '../flags/caller.js';
import {
  deleteCluster,
  DuplicateClusterError,
  listClusters,
  readCluster,
  registerCluster,
  rotateAgentToken,
} from '../cluster-store/store.js';
import type { Cluster, ClusterWithAgent } from '../cluster-store/store.js';

/** A cluster as the reads answer it: with its agent's presence and its effective CLI access. */
export type ClusterRead = ClusterWithAgent & { cliAccess: CliAccessJson & { message: string | null } };
/** A cluster with a new agent token (shown once) and where its agent dials. */
export type ClusterWithToken = Cluster & { agentToken: string; tunnelUrl: string };

/** A tenant's clusters as the routes ask for them, the caller or actor named explicitly. */
export class ClusterService {
  private readonly isPlatformAdmin: PlatformAdminCheck;
  private readonly tunnelUrl: string;
  private readonly names: SubjectNames;

  constructor(
    private readonly pool: pg.Pool,
    private readonly flagsClient: FlagsClient,
    platformId: string,
    /** `PROXY_TUNNEL_PUBLIC_URL`: where the agent dials, answered with each new agent token. */
    tunnelUrl: string,
  ) {
    this.isPlatformAdmin = platformAdminCheck(pool, platformId);
    this.names = new SubjectNames(pool);
    this.tunnelUrl = tunnelUrl.replace(/\/+$/, '');
  }

  async list(caller: string, org: string): Promise<ClusterRead[]> {
    return this.withAccess(await listClusters(this.pool, org), caller);
  }

  async read(caller: string, org: string, id: string): Promise<ClusterRead> {
    const cluster = await readCluster(this.pool, org, id);
    return (await this.withAccess([cluster], caller))[0]!;
  }

  /** A 409 when the tenant has a cluster of that name. */
  async register(actor: string, org: string, name: string, requestId: string): Promise<ClusterWithToken> {
    try {
      const cluster = await registerCluster(this.pool, org, name, actor, requestId);
      return { ...cluster, tunnelUrl: this.tunnelUrl };
    } catch (err) {
      if (err instanceof DuplicateClusterError) throw new Conflict(err.message);
      throw err;
    }
  }

  async delete(actor: string, org: string, id: string, requestId: string): Promise<void> {
    if (!(await deleteCluster(this.pool, org, id, actor, requestId)))
      throw new NotFound(`cluster ${id} not found in tenant ${org}`);
  }

  /** The new token is shown once; the old one stops working and its live tunnel is closed. */
  async rotateAgentToken(actor: string, org: string, id: string, requestId: string): Promise<ClusterWithToken> {
    const cluster = await rotateAgentToken(this.pool, org, id, actor, requestId);
    if (!cluster) throw new NotFound(`cluster ${id} not found in tenant ${org}`);
    return { ...cluster, tunnelUrl: this.tunnelUrl };
  }

  /**
   * The clusters with their access states, each record's actor named where the platform knows them.
   * Evaluations are answered from the flags client's memory; whether the caller is a platform admin
   * is asked only when a record would name one.
   */
  private async withAccess(clusters: ClusterWithAgent[], caller: string): Promise<ClusterRead[]> {
    const evaluated = await Promise.all(
      clusters.map(async (cluster) => {
        const access = await this.flagsClient.cliAccess({ org: cluster.org, clusterId: cluster.id });
        return { cluster, access };
      }),
    );
    const mayName = evaluated.some(({ access }) => access.record !== undefined && mayNamePlatformAdmin(access.record));
    const admin = mayName && (await this.isPlatformAdmin(caller));
    const reads = evaluated.map(({ cluster, access }) => ({
      ...cluster,
      cliAccess: cliAccessWithMessage(cluster.id, access, admin),
    }));
    const names = await this.names.of(reads.map((read) => read.cliAccess.record?.actor));
    return reads.map((read) => ({
      ...read,
      cliAccess: { ...read.cliAccess, record: namedRecord(read.cliAccess.record, names) },
    }));
  }
}
