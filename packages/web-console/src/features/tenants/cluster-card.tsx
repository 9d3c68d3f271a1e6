import { useCallback, useId, useState } from 'react';
import type { Cluster, Role } from './api';
import { ClearDialog, DeleteDialog, SwitchDialog } from './cluster-dialogs';
import { ClusterActions, SwitchActions } from './components/cluster-actions';
import { AccessNotices, ClusterFacts } from './components/cluster-facts';

type Open = 'off' | 'on' | 'clear' | 'delete' | undefined;

/** One cluster: what decides its CLI access, its agent, and what the caller's role may do with it. */
export function ClusterCard({
  org,
  role,
  cluster,
  onChanged,
}: {
  org: string;
  role: Role;
  cluster: Cluster;
  onChanged: () => void;
}) {
  const [open, setOpen] = useState<Open>();
  const close = useCallback(() => setOpen(undefined), []);
  const done = () => {
    setOpen(undefined);
    onChanged();
  };
  const ids = useId();
  const canChange = role === 'admin' || role === 'operator';
  const dialog = { org, cluster, onClose: close, onDone: done };

  return (
    <article className="cluster" aria-labelledby={`${ids}-name`}>
      <h4 id={`${ids}-name`}>{cluster.name}</h4>
      <ClusterFacts cluster={cluster} />
      <AccessNotices access={cluster.cliAccess} refusalId={`${ids}-refusal`} />
      <SwitchActions
        canChange={canChange}
        enabled={cluster.cliAccess.enabled}
        ownOverride={cluster.cliAccess.source === 'cluster'}
        onOpen={setOpen}
      />
      <ClusterActions
        org={org}
        cluster={cluster}
        canChange={canChange}
        refusalId={`${ids}-refusal`}
        onDelete={() => setOpen('delete')}
      />
      {(open === 'off' || open === 'on') && <SwitchDialog {...dialog} value={open === 'on'} />}
      {open === 'clear' && <ClearDialog {...dialog} />}
      {open === 'delete' && <DeleteDialog {...dialog} />}
    </article>
  );
}
