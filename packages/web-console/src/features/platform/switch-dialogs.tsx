import { useEffect, useId, useRef, useState } from 'react';
import type { FormEvent, ReactNode } from 'react';
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

const EXPIRIES = new Map<string, { label: string; minutes: number | null }>([
  ['never', { label: 'Never (until someone switches it back on)', minutes: null }],
  ['10m', { label: '10 minutes', minutes: 10 }],
  ['1h', { label: '1 hour', minutes: 60 }],
  ['8h', { label: '8 hours', minutes: 8 * 60 }],
  ['24h', { label: '24 hours', minutes: 24 * 60 }],
]);

const REASON_MAX = 200;

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function failure(err: unknown): string {
  return err instanceof ApiError ? err.message : 'Something went wrong in the console; try again.';
}

/** A native modal <dialog>: the browser traps focus and closes it on Escape; labelled by its title. */
function Modal({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog !== null && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}

/** Switching the whole platform off: reason, optional expiry, the blast radius and a typed confirmation. */
export function SwitchOffDialog({ onClose, onDone }: { onClose: () => void; onDone: () => void }) {
  const [impact, setImpact] = useState<Impact | undefined>();
  const [impactError, setImpactError] = useState<string | undefined>();
  const [reason, setReason] = useState('');
  const [expiry, setExpiry] = useState('never');
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
    setBusy(true);
    setError(undefined);
    const minutes = EXPIRIES.get(expiry)?.minutes ?? null;
    try {
      await send('PUT', FLAG_PATH, {
        body: {
          value: false,
          reason: reason.trim(),
          ...(minutes === null ? {} : { expiresAt: new Date(Date.now() + minutes * 60_000).toISOString() }),
        },
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
        <label htmlFor={`${ids}-expiry`}>Switch back on after</label>
        <select id={`${ids}-expiry`} name="expiry" value={expiry} onChange={(e) => setExpiry(e.target.value)}>
          {[...EXPIRIES].map(([key, { label }]) => (
            <option key={key} value={key}>
              {label}
            </option>
          ))}
        </select>
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
