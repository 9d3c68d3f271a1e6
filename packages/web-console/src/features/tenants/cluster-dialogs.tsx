import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { REASON_MAX_LENGTH, reasonProblem } from '@gsp/platform-contract/text';
import { ConfirmDialog, ExpiryField, expiresAtOf, NO_EXPIRY, Modal, ErrorNotice, useAction } from '@gsp/ui';
import type { Expiry } from '@gsp/ui';
import { clearOverride, deleteCluster, setOverride } from './api';
import type { Cluster } from './api';
import { SWITCH_NEVER } from '../../lib/expiry';

interface DialogProps {
  org: string;
  cluster: Cluster;
  onClose: () => void;
  onDone: () => void;
}

/**
 * Sets the cluster's own value (its override of the platform's), with a reason (required to switch
 * off, shown to kubectl users) and an optional expiry, when the override is cleared.
 */
export function SwitchDialog({ org, cluster, value, onClose, onDone }: DialogProps & { value: boolean }) {
  const [reason, setReason] = useState('');
  const [expiry, setExpiry] = useState<Expiry>(NO_EXPIRY);
  const { busy, error, setError, run } = useAction(onDone);
  const ids = useId();
  const trimmed = reason.trim();
  // The server's rule, counted as it counts (code points); a reason is optional only to switch on.
  const reasonRefused = trimmed === '' && value ? undefined : reasonProblem(trimmed);
  const reasonOk = reasonRefused === undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!reasonOk) return;
    const expiresAt = expiresAtOf(expiry);
    if ('problem' in expiresAt) {
      setError(expiresAt.problem);
      return;
    }
    void run(() =>
      setOverride(org, cluster.id, { value, ...(trimmed === '' ? {} : { reason: trimmed }), ...expiresAt }),
    );
  };

  return (
    <Modal title={`Switch CLI access ${value ? 'on' : 'off'} for cluster ${cluster.name}`} onClose={onClose}>
      <p id={`${ids}-what`}>
        {value
          ? 'kubectl works for this cluster whatever the platform says, until the override is cleared.'
          : 'kubectl through the proxy is refused for this cluster, with your reason, until the override is cleared.'}
      </p>
      <form className="form" onSubmit={submit}>
        <label htmlFor={`${ids}-reason`}>
          {value
            ? `Reason (optional, up to ${REASON_MAX_LENGTH} characters)`
            : `Reason (shown to kubectl users, 1–${REASON_MAX_LENGTH} characters)`}
        </label>
        <input
          id={`${ids}-reason`}
          name="reason"
          required={!value}
          autoComplete="off"
          aria-invalid={reason !== '' && !reasonOk}
          aria-describedby={reason !== '' && !reasonOk ? `${ids}-what ${ids}-reason-why` : `${ids}-what`}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
        {reason !== '' && !reasonOk && (
          <p className="why" id={`${ids}-reason-why`}>
            The {reasonRefused}.
          </p>
        )}
        <ExpiryField label="Clear the override after" value={expiry} onChange={setExpiry} neverLabel={SWITCH_NEVER} />
        {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
        <div className="actions">
          <button type="submit" className={value ? 'button' : 'button button-danger'} disabled={!reasonOk || busy}>
            {value ? 'Switch on' : 'Switch off'}
          </button>
          <button type="button" className="button button-secondary" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** Clears the cluster's override (DELETE): the platform's value applies again. */
export function ClearDialog({ org, cluster, onClose, onDone }: DialogProps) {
  return (
    <ConfirmDialog
      title={`Clear the override on cluster ${cluster.name}?`}
      confirmLabel="Clear override"
      onConfirm={() => clearOverride(org, cluster.id)}
      onClose={onClose}
      onDone={onDone}
    >
      The platform's value (or, without one, the built-in default) decides for this cluster again.
    </ConfirmDialog>
  );
}

/** Deletes the cluster after a confirmation that names it and says what follows. */
export function DeleteDialog({ org, cluster, onClose, onDone }: DialogProps) {
  return (
    <ConfirmDialog
      title={`Delete cluster ${cluster.name}?`}
      confirmLabel={`Delete cluster ${cluster.name}`}
      danger
      onConfirm={() => deleteCluster(org, cluster.id)}
      onClose={onClose}
      onDone={onDone}
    >
      Cluster <strong>{cluster.name}</strong> (<span className="code">{cluster.id}</span>) is removed from tenant {org}:
      kubectl through the proxy stops working for it, its agent token stops working and its agent's tunnel is closed.
      This cannot be undone.
    </ConfirmDialog>
  );
}
