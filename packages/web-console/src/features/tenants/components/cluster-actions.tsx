import { useId } from 'react';
import { kubeconfigUrl } from '../api';
import type { Cluster } from '../api';

const VIEWER_SWITCH = 'Viewers cannot change CLI access; ask a tenant admin or operator.';
const VIEWER_CLUSTER =
  'Viewers cannot download a kubeconfig or delete a cluster: kubectl needs the tenant admin or operator role.';

/**
 * Switch off while access is on, switch on while it is off, and (with an override of its own)
 * clear; a viewer is told why they are disabled.
 */
export function SwitchActions({
  canChange,
  enabled,
  ownOverride,
  onOpen,
}: {
  canChange: boolean;
  /** The cluster's effective CLI access: only the switch that would change it is offered. */
  enabled: boolean;
  ownOverride: boolean;
  onOpen: (dialog: 'off' | 'on' | 'clear') => void;
}) {
  const ids = useId();
  const why = canChange ? undefined : `${ids}-switch-why`;
  const button = (dialog: 'off' | 'on' | 'clear', className: string, label: string) => (
    <button
      type="button"
      className={className}
      disabled={!canChange}
      aria-describedby={why}
      onClick={() => onOpen(dialog)}
    >
      {label}
    </button>
  );
  return (
    <>
      <div className="actions">
        {enabled ? button('off', 'button button-danger', 'Switch off') : button('on', 'button', 'Switch on')}
        {ownOverride && button('clear', 'button button-secondary', 'Clear override')}
      </div>
      {why !== undefined && (
        <p className="why" id={why}>
          {VIEWER_SWITCH}
        </p>
      )}
    </>
  );
}

/**
 * The kubeconfig download (for an admin or operator while access is on; else disabled, described by
 * why: the role, and `refusalId`, the refusal kubectl gets) and the cluster's deletion.
 */
export function ClusterActions({
  org,
  cluster,
  canChange,
  refusalId,
  onDelete,
}: {
  org: string;
  cluster: Cluster;
  canChange: boolean;
  refusalId: string;
  onDelete: () => void;
}) {
  const ids = useId();
  const roleWhy = canChange ? undefined : `${ids}-cluster-why`;
  const enabled = cluster.cliAccess.enabled;
  const kubeconfigWhy = [roleWhy, enabled ? undefined : refusalId].filter((id) => id !== undefined).join(' ');
  return (
    <>
      <div className="actions">
        {canChange && enabled ? (
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
          aria-describedby={roleWhy}
          onClick={onDelete}
        >
          Delete cluster
        </button>
      </div>
      {roleWhy !== undefined && (
        <p className="why" id={roleWhy}>
          {VIEWER_CLUSTER}
        </p>
      )}
    </>
  );
}
