import { useCallback, useId, useState } from 'react';
import { ErrorNotice, Panel, useLoad } from '@gsp/ui';
import { loadClusters, loadMemberships, ROLE_NAMES } from './api';
import type { Membership } from './api';
import { ClusterCard } from './cluster-card';
import { ClusterList } from './components/cluster-list';
import { Members } from './members';
import { RegisterCluster } from './register-cluster';

const ROLE_RIGHTS = new Map<string, string>([
  ['admin', 'you switch CLI access, download kubeconfigs, register and delete clusters, and manage members'],
  ['operator', 'you switch CLI access, download kubeconfigs, and register and delete clusters'],
  ['viewer', 'you see its clusters and their CLI access; changes need a tenant admin or operator'],
]);

/** One tenant: its clusters, registration and, for its admins, its members; fetched again on `version`. */
function TenantPanel({ membership: { org, role }, version }: { membership: Membership; version: number }) {
  const [own, setOwn] = useState(0);
  const changed = useCallback(() => setOwn((n) => n + 1), []);
  const load = useCallback((signal: AbortSignal) => loadClusters(org, signal), [org]);
  const clusters = useLoad(load, version + own);
  const canChange = role === 'admin' || role === 'operator';
  const ids = useId();
  return (
    <section className="panel tenant" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Tenant {org}</h2>
      <p className="role">
        Your role: <strong>{ROLE_NAMES.get(role) ?? role}</strong> —{' '}
        {ROLE_RIGHTS.get(role) ?? 'your rights are unknown'}.
      </p>
      <ClusterList
        org={org}
        clusters={clusters}
        render={(cluster) => <ClusterCard org={org} role={role} cluster={cluster} onChanged={changed} />}
      />
      <RegisterCluster org={org} canRegister={canChange} onRegistered={changed} />
      <h3>Members</h3>
      {role === 'admin' ? (
        <Members org={org} version={version} />
      ) : (
        <p>Only the tenant&apos;s admins see and manage its members.</p>
      )}
    </section>
  );
}

/**
 * A panel per tenant the user belongs to. Memberships are asked again whenever `version` grows, so
 * a role changed or a membership removed elsewhere shows without a reload. A platform admin who
 * belongs to none is not told so: they read every tenant in the platform admins' view.
 */
export function TenantView({
  tenants,
  version,
  platformAdmin,
}: {
  tenants: Membership[];
  version: number;
  platformAdmin: boolean;
}) {
  const load = useCallback(
    (signal: AbortSignal) => (version === 0 ? Promise.resolve(tenants) : loadMemberships(signal)),
    [version, tenants],
  );
  const fresh = useLoad(load, version);
  const memberships = fresh.state === 'done' ? fresh.data : tenants;
  if (memberships.length === 0)
    return platformAdmin ? null : (
      <Panel title="Your tenants">
        <p>You are not a member of any tenant yet. A tenant admin or a platform admin can add you.</p>
      </Panel>
    );
  return (
    <>
      {fresh.state === 'error' && <ErrorNotice>{fresh.message}</ErrorNotice>}
      {memberships.map((membership) => (
        <TenantPanel key={membership.org} membership={membership} version={version} />
      ))}
    </>
  );
}
