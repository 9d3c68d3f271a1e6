import type { Queryable } from '@gsp/platform-contract';

/** What switching a flag off platform-wide would reach, for the console's confirmation. */
export interface PlatformOffImpact {
  /** Clusters without an override of their own for the flag: the platform value decides for them. */
  clustersAffected: number;
  /** Agent tunnels open now (live leases), across every cluster. */
  tunnelsOpen: number;
}

export async function platformOffImpact(db: Queryable, flagKey: string): Promise<PlatformOffImpact> {
  const { rows } = await db.query<{ clusters: number; tunnels: number }>(
    `SELECT
       (SELECT count(*)::int FROM clusters c WHERE NOT EXISTS (
          SELECT 1 FROM feature_flags f
          WHERE f.flag_key = $1 AND f.cluster_id = c.id AND (f.expires_at IS NULL OR f.expires_at > now())
       )) AS clusters,
       (SELECT count(*)::int FROM agent_tunnels WHERE lease_expires_at > now()) AS tunnels`,
    [flagKey],
  );
  const row = rows[0];
  return { clustersAffected: row?.clusters ?? 0, tunnelsOpen: row?.tunnels ?? 0 };
}
