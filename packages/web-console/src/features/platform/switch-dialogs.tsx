import { useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { ExpiryField, expiresAtOf, NO_EXPIRY } from '../../components/expiry-field';
import type { Expiry } from '../../components/expiry-field';
import { Modal } from '../../components/modal';
import { ErrorNotice } from '../../components/notice';
import { ApiError, getJson, send } from '../../lib/api';
import { CLI_ACCESS_FLAG } from './api';

const FLAG_PATH = `/api/v1/platform/feature-flags/${CLI_ACCESS_FLAG}` as const;

/** `GET .../impact`; `platformId` is used when the server names it. */
interface Impact {
  clustersAffected: number;
  tunnelsOpen: number;
  platformId?: unknown;
}

const REASON_MAX = 200;

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function failure(err: unknown): string {
  return err instanceof ApiError ? err.message : 'Something went wrong in the console; try again.';
}

/** Switching the whole platform off: reason, optional expiry, the blast radius and a typed confirmation. */
export function SwitchOffDialog({ onClose, onDone }: { onClose: () => void; onDone: () => void }) {
  const [impact, setImpact] = useState<Impact | undefined>();
  const [impactError, setImpactError] = useState<string | undefined>();
  const [reason, setReason] = useState('');
  const [expiry, setExpiry] = useState<Expiry>(NO_EXPIRY);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const ids = useId();

  useEffect(() => {
    const abort = new AbortController();
    getJson<Impact>(`${FLAG_PATH}/impact`, abort.signal).then(setImpact, (err: unknown) => {
      if (!abort.signal.aborted) setImpactError(failure(err));
    });
    return () => abort.abort();
  }, []);

  const platformId = typeof impact?.platformId === 'string' ? impact.platformId : undefined;
  const confirmed = platformId === undefined ? typed.trim() !== '' : typed.trim() === platformId;
  const reasonOk = reason.trim().length >= 1 && reason.trim().length <= REASON_MAX;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!confirmed || !reasonOk) return;
    const expiresAt = expiresAtOf(expiry);
    if ('problem' in expiresAt) {
      setError(expiresAt.problem);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await send('PUT', FLAG_PATH, {
        body: { value: false, reason: reason.trim(), ...expiresAt },
        headers: { 'x-gsp-confirm': typed.trim() },
      });
      onDone();
    } catch (err) {
      setError(failure(err));
      setBusy(false);
    }
  };

  return (
    <Modal title="Switch CLI access off for the whole platform" onClose={onClose}>
      <p className="blast" id={`${ids}-impact`}>
        {impact !== undefined
          ? `${plural(impact.clustersAffected, 'cluster loses', 'clusters lose')} kubectl access; ${plural(impact.tunnelsOpen, 'tunnel is', 'tunnels are')} open now.`
          : (impactError ?? 'Counting the clusters this reaches…')}
      </p>
      <form className="form" onSubmit={(e) => void submit(e)}>
        <label htmlFor={`${ids}-reason`}>Reason (shown to everyone, 1–200 characters)</label>
        <input
          id={`${ids}-reason`}
          name="reason"
          required
          maxLength={REASON_MAX}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
        <ExpiryField label="Switch back on after" value={expiry} onChange={setExpiry} />
        <label htmlFor={`${ids}-confirm`}>
          {platformId === undefined ? (
            "To confirm, type this platform's id (the API server's PLATFORM_ID)"
          ) : (
            <>
              To confirm, type the platform id <strong className="code">{platformId}</strong>
            </>
          )}
        </label>
        <input
          id={`${ids}-confirm`}
          name="confirm"
          autoComplete="off"
          spellCheck={false}
          aria-describedby={`${ids}-impact`}
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
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
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await send('DELETE', FLAG_PATH);
      onDone();
    } catch (err) {
      setError(failure(err));
      setBusy(false);
    }
  };
  return (
    <Modal title="Switch CLI access back on for the platform?" onClose={onClose}>
      <p>This clears the platform's switch: every cluster without an override of its own gets kubectl access back.</p>
      {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
      <div className="actions">
        <button type="button" className="button" onClick={() => void confirm()} disabled={busy}>
          Switch back on
        </button>
        <button type="button" className="button button-secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
