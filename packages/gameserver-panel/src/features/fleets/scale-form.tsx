import { useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { ErrorNotice, failure } from '@gsp/ui';
import { MAX_REPLICAS, replicasProblem, scaleFleet } from './api';
import type { Fleet } from './api';

/**
 * Sets a fleet's desired replicas. The count is checked here first (a whole number within the
 * API's bound), then the control plane's answer or refusal is shown under the form.
 * `why`: the sentence saying why this role cannot scale, when it cannot.
 */
export function ScaleForm({ fleet, why, onScaled }: { fleet: Fleet; why?: string; onScaled: () => void }) {
  // What was typed, until the fleet's count changes (scaled here or elsewhere): then the field shows it.
  const [typed, setTyped] = useState<string | undefined>();
  const replicas = typed ?? String(fleet.replicas);
  useEffect(() => setTyped(undefined), [fleet.replicas]);
  const [problem, setProblem] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  const ids = useId();
  const allowed = why === undefined;
  const described = [allowed ? undefined : `${ids}-why`, problem === undefined ? undefined : `${ids}-problem`]
    .filter(Boolean)
    .join(' ');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const wrong = replicasProblem(replicas);
    setProblem(wrong);
    setError(undefined);
    setDone('');
    if (wrong !== undefined) return;
    const wanted = Number(replicas.trim());
    setBusy(true);
    try {
      await scaleFleet(fleet, wanted);
      setDone(`Fleet ${fleet.name} now wants ${wanted} ${wanted === 1 ? 'replica' : 'replicas'}.`);
      onScaled();
    } catch (err) {
      setError(failure(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form fleet-scale" onSubmit={(e) => void submit(e)}>
      <label htmlFor={`${ids}-replicas`}>Desired replicas (0 to {MAX_REPLICAS})</label>
      <div className="inline">
        <input
          id={`${ids}-replicas`}
          name="replicas"
          inputMode="numeric"
          autoComplete="off"
          disabled={!allowed}
          aria-invalid={problem === undefined ? undefined : true}
          aria-describedby={described === '' ? undefined : described}
          value={replicas}
          onChange={(e) => setTyped(e.target.value)}
        />
        <button
          type="submit"
          className="button"
          disabled={!allowed || busy}
          aria-describedby={allowed ? undefined : `${ids}-why`}
        >
          Scale
        </button>
      </div>
      {problem !== undefined && (
        <p className="fleet-problem" id={`${ids}-problem`}>
          {problem}
        </p>
      )}
      {!allowed && (
        <p className="why" id={`${ids}-why`}>
          {why}
        </p>
      )}
      {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
      <p role="status" className="fleet-done">
        {done}
      </p>
    </form>
  );
}
