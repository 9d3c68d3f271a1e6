import { useCallback, useId, useState } from 'react';
import { ErrorNotice, Loading, Panel, useLoad } from '@gsp/ui';
import { loadClusters, loadTenants } from './api';
import type { Cluster, TenantSummary } from './api';
import { AccessNotices, ClusterFacts } from './components/cluster-facts';
import { ClusterList } from './components/cluster-list';
import { MembersReadOnly } from './members';

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A cluster's facts and the refusal kubectl gets, with nothing to press. */
function ClusterRead({ cluster }: { cluster: Cluster }) {
  const ids = useId();
  return (
    <article className="cluster" aria-labelledby={`${ids}-name`}>
      <h4 id={`${ids}-name`}>{cluster.name}</h4>
      <ClusterFacts cluster={cluster} />
      <AccessNotices access={cluster.cliAccess} refusalId={`${ids}-refusal`} />
    </article>
  );
}

/** One tenant's clusters (with their CLI access) and members, fetched once it is opened. */
function TenantDetails({ org, version }: { org: string; version: number }) {
  const load = useCallback((signal: AbortSignal) => loadClusters(org, signal), [org]);
  const clusters = useLoad(load, version);
  return (
    <>
      <ClusterList org={org} clusters={clusters} render={(cluster) => <ClusterRead cluster={cluster} />} />
      <h3>Members</h3>
      <MembersReadOnly org={org} version={version} />
    </>
  );
}

function TenantEntry({ tenant, version }: { tenant: TenantSummary; version: number }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="tenant-summary" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        {tenant.org}: {count(tenant.clusters, 'cluster', 'clusters')}, {count(tenant.members, 'member', 'members')}
      </summary>
      {open && <TenantDetails org={tenant.org} version={version} />}
    </details>
  );
}

/**
 * Every tenant, for platform admins, read-only: open one to see its clusters, their CLI access and
 * who set it, and its members. Asked again whenever `version` grows.
 */
export function AllTenants({ version }: { version: number }) {
  const tenants = useLoad(loadTenants, version);
  return (
    <Panel title="All tenants">
      <p>
        As a platform admin you can read every tenant here: open one to see its clusters, their CLI access and its
        members. Nothing here changes them.
      </p>
      {tenants.state === 'loading' && <Loading what="the tenants" />}
      {tenants.state === 'error' && <ErrorNotice>{tenants.message}</ErrorNotice>}
      {tenants.state === 'done' &&
        (tenants.data.length === 0 ? (
          <p>There is no tenant yet.</p>
        ) : (
          tenants.data.map((tenant) => <TenantEntry key={tenant.org} tenant={tenant} version={version} />)
        ))}
    </Panel>
  );
}
