import { useCallback, useId, useState } from 'react';
import { formatTime } from '../../lib/format';
import { kubeconfigUrl } from './api';
import type { Cluster, Role, SwitchRecord } from './api';
import { ClearDialog, DeleteDialog, SwitchDialog } from './cluster-dialogs';

const SOURCES = new Map<string, string>([
  ['cluster', "this cluster's override"],
  ['platform', "the platform's value, set by a platform admin"],
  ['default', 'the built-in default'],
  ['env', 'pinned by SERVICE_CLI_ACCESS_ENABLED on the API server'],
]);

const VIEWER_SWITCH = 'Viewers cannot change CLI access; ask a tenant admin or operator.';
const VIEWER_CLUSTER =
  'Viewers cannot download a kubeconfig or delete a cluster: kubectl needs the tenant admin or operator role.';

function setBy(record: SwitchRecord | null, source: string): string {
  if (source === 'env') return 'The API server’s configuration';
  if (record === null) return 'Nobody (the default applies)';
  if (record.actor === null) return 'A platform admin';
  if (record.actorRole === 'platform-admin') return `${record.actor} (platform admin)`;
  return record.actorRole === null ? record.actor : `${record.actor} (tenant ${record.actorRole})`;
}

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
  const { cliAccess: access, agent } = cluster;
  const record = access.record;
  const canChange = role === 'admin' || role === 'operator';
  const ownOverride = access.source === 'cluster';
  const switchWhy = canChange ? undefined : `${ids}-switch-why`;
  const kubeconfigWhy = [canChange ? undefined : `${ids}-cluster-why`, access.enabled ? undefined : `${ids}-refusal`]
    .filter((id) => id !== undefined)
    .join(' ');

  return (
    <article className="cluster" aria-labelledby={`${ids}-name`}>
      <h4 id={`${ids}-name`}>{cluster.name}</h4>
      <dl className="cluster-facts">
        <div className="fact">
          <dt>ID</dt>
          <dd className="code">{cluster.id}</dd>
        </div>
        <div className="fact">
          <dt>CLI access</dt>
          <dd className={access.enabled ? 'access access-on' : 'access access-off'}>{access.enabled ? 'On' : 'Off'}</dd>
        </div>
        <div className="fact">
          <dt>Source</dt>
          <dd>{SOURCES.get(access.source) ?? access.source}</dd>
        </div>
        <div className="fact">
          <dt>Set by</dt>
          <dd>{setBy(record, access.source)}</dd>
        </div>
        <div className="fact">
          <dt>Reason</dt>
          <dd>{record?.reason ?? 'None given'}</dd>
        </div>
        <div className="fact">
          <dt>Expires</dt>
          <dd>{record?.expiresAt ? formatTime(record.expiresAt) : 'Never'}</dd>
        </div>
        <div className="fact">
          <dt>Agent</dt>
          <dd>
            {agent.connected
              ? `Connected since ${agent.since === null ? 'now' : formatTime(agent.since)}`
              : 'Not connected'}
          </dd>
        </div>
      </dl>
      {access.envPinned && (
        <p className="notice">
          SERVICE_CLI_ACCESS_ENABLED on the API server pins CLI access: overrides are stored but have no effect until it
          is unset.
        </p>
      )}
      {access.message !== null && (
        <p className="notice notice-warning" id={`${ids}-refusal`}>
          {access.message}
        </p>
      )}

      <div className="actions">
        <button
          type="button"
          className="button button-danger"
          disabled={!canChange}
          aria-describedby={switchWhy}
          onClick={() => setOpen('off')}
        >
          Switch off
        </button>
        <button
          type="button"
          className="button"
          disabled={!canChange}
          aria-describedby={switchWhy}
          onClick={() => setOpen('on')}
        >
          Switch on
        </button>
        {ownOverride && (
          <button
            type="button"
            className="button button-secondary"
            disabled={!canChange}
            aria-describedby={switchWhy}
            onClick={() => setOpen('clear')}
          >
            Clear override
          </button>
        )}
      </div>
      {switchWhy !== undefined && (
        <p className="why" id={switchWhy}>
          {VIEWER_SWITCH}
        </p>
      )}

      <div className="actions">
        {canChange && access.enabled ? (
          <a
            className="button button-secondary"
            href={kubeconfigUrl(org, cluster.id)}
            download={`${org}-${cluster.name}.kubeconfig`}
          >
            Download kubeconfig
          </a>
        ) : (
          <button type="button" className="button button-secondary" disabled aria-describedby={kubeconfigWhy}>
            Download kubeconfig
          </button>
        )}
        <button
          type="button"
          className="button button-secondary"
          disabled={!canChange}
          aria-describedby={canChange ? undefined : `${ids}-cluster-why`}
          onClick={() => setOpen('delete')}
        >
          Delete cluster
        </button>
      </div>
      {!canChange && (
        <p className="why" id={`${ids}-cluster-why`}>
          {VIEWER_CLUSTER}
        </p>
      )}

      {(open === 'off' || open === 'on') && (
        <SwitchDialog org={org} cluster={cluster} value={open === 'on'} onClose={close} onDone={done} />
      )}
      {open === 'clear' && <ClearDialog org={org} cluster={cluster} onClose={close} onDone={done} />}
      {open === 'delete' && <DeleteDialog org={org} cluster={cluster} onClose={close} onDone={done} />}
    </article>
  );
}
