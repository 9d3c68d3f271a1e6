import { useEffect, useState } from 'react';
import { ApiError } from './api';

export type Loaded<T> = { state: 'loading' } | { state: 'error'; message: string } | { state: 'done'; data: T };

/** Runs `load` once on mount (aborted on unmount) and tells how it went, errors as sentences. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  useEffect(() => {
    const abort = new AbortController();
    load(abort.signal).then(
      (data) => setLoaded({ state: 'done', data }),
      (err: unknown) => {
        if (abort.signal.aborted) return;
        const message =
          err instanceof ApiError ? err.message : 'Something went wrong in the console; reload the page to try again.';
        setLoaded({ state: 'error', message });
      },
    );
    return () => abort.abort();
  }, [load]);
  return loaded;
}
