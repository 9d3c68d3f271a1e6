import { useEffect, useState } from 'react';
import { ApiError } from './api';

export type Loaded<T> = { state: 'loading' } | { state: 'error'; message: string } | { state: 'done'; data: T };

/**
 * Runs `load` on mount (aborted on unmount) and again whenever `version` changes, and tells how it
 * went, errors as sentences. A reload keeps what is shown until its answer arrives.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, version = 0): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  useEffect(() => {
    const abort = new AbortController();
    load(abort.signal).then(
      (data) => {
        if (!abort.signal.aborted) setLoaded({ state: 'done', data });
      },
      (err: unknown) => {
        if (abort.signal.aborted) return;
        const message = err instanceof ApiError ? err.message : 'Something went wrong; reload the page to try again.';
        setLoaded({ state: 'error', message });
      },
    );
    return () => abort.abort();
  }, [load, version]);
  return loaded;
}
