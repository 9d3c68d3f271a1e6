import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { REASON_MAX_LENGTH, reasonProblem } from '@gsp/platform-contract/text';
import { ConfirmDialog, ExpiryField, expiresAtOf, NO_EXPIRY, Modal, ErrorNotice, useAction } from '@gsp/ui';
import type { Expiry } from '@gsp/ui';
import { clearPlatformSwitch, switchPlatformOff } from './api';
import { BlastRadius, PlatformIdField } from './components/platform-confirm';
import { useImpact } from './hooks/use-impact';
import { SWITCH_NEVER } from '../../lib/expiry';

/** Switching the whole platform off: reason, optional expiry, the blast radius and a typed confirmation. */
export function SwitchOffDialog({ onClose, onDone }: { onClose: () => void; onDone: () => void }) {
  const { impact, error: impactError } = useImpact();
  const [reason, setReason] = useState('');
  const [expiry, setExpiry] = useState<Expiry>(NO_EXPIRY);
  const [typed, setTyped] = useState('');
  const { busy, error, setError, run } = useAction(onDone);
  const ids = useId();

  const platformId = impact?.platformId;
  const confirmed = platformId === undefined ? typed.trim() !== '' : typed.trim() === platformId;
  // The server's rule, counted as it counts (code points): what it would refuse is said before sending.
  const reasonRefused = reasonProblem(reason.trim());
  const reasonOk = reasonRefused === undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!confirmed || !reasonOk) return;
    const expiresAt = expiresAtOf(expiry);
    if ('problem' in expiresAt) {
      setError(expiresAt.problem);
      return;
    }
    void run(() => switchPlatformOff({ reason: reason.trim(), ...expiresAt }, typed.trim()));
  };

  return (
    <Modal title="Switch CLI access off for the whole platform" onClose={onClose}>
      <BlastRadius id={`${ids}-impact`} impact={impact} error={impactError} />
      <form className="form" onSubmit={submit}>
        <label htmlFor={`${ids}-reason`}>Reason (shown to everyone, 1–{REASON_MAX_LENGTH} characters)</label>
        <input
          id={`${ids}-reason`}
          name="reason"
          required
          aria-invalid={reason !== '' && !reasonOk}
          aria-describedby={reason !== '' && !reasonOk ? `${ids}-reason-why` : undefined}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
        {reason !== '' && !reasonOk && (
          <p className="why" id={`${ids}-reason-why`}>
            The {reasonRefused}.
          </p>
        )}
        <ExpiryField label="Switch back on after" value={expiry} onChange={setExpiry} neverLabel={SWITCH_NEVER} />
        <PlatformIdField
          id={`${ids}-confirm`}
          platformId={platformId}
          describedBy={`${ids}-impact`}
          value={typed}
          onChange={setTyped}
        />
        {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
        <div className="actions">
          <button type="submit" className="button button-danger" disabled={!confirmed || !reasonOk || busy}>
            Switch off for everyone
          </button>
          <button type="button" className="button button-secondary" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** Clearing the platform's value (DELETE): a plain confirmation. */
export function SwitchOnDialog({ onClose, onDone }: { onClose: () => void; onDone: () => void }) {
  return (
    <ConfirmDialog
      title="Switch CLI access back on for the platform?"
      confirmLabel="Switch back on"
      onConfirm={clearPlatformSwitch}
      onClose={onClose}
      onDone={onDone}
    >
      This clears the platform's switch: every cluster without an override of its own gets kubectl access back.
    </ConfirmDialog>
  );
}
