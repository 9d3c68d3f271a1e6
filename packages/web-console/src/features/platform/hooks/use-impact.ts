import { useEffect, useState } from 'react';
import { failure } from '@gsp/ui';
import { loadImpact } from '../api';
import type { Impact } from '../api';

/** The blast radius of switching the platform off, asked once when the dialog opens; or why it is unknown. */
export function useImpact(): { impact?: Impact; error?: string } {
  const [impact, setImpact] = useState<Impact | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    const abort = new AbortController();
    loadImpact(abort.signal).then(setImpact, (err: unknown) => {
      if (!abort.signal.aborted) setError(failure(err));
    });
    return () => abort.abort();
  }, []);
  return { impact, error };
}
