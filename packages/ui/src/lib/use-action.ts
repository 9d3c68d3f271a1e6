import { useState } from 'react';
import { failure } from './failure';

/** Runs `act`, then `onDone`; a refusal stays (in the dialog that ran it) as a sentence. */
export function useAction(onDone: () => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const run = async (act: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await act();
      onDone();
    } catch (err) {
      setError(failure(err));
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}
