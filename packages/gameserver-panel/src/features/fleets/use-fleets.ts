import { useCallback, useEffect, useState } from 'react';
import { failure } from '@gsp/ui';
import { listFleets } from './api';
import type { Fleet } from './api';

/**
 * How often the fleets are asked for again. The control plane has no live feed of fleets; it
 * answers the list from its informer's cache, so a question every few seconds costs little.
 */
export const FLEETS_POLL_MS = 5_000;

export interface PolledFleets {
  /** The last list answered; undefined until the first answer. */
  fleets: Fleet[] | undefined;
  /** Why the last question failed, as a sentence; undefined when it was answered. */
  problem: string | undefined;
  /** Asks again now. */
  refresh: () => void;
}

/**
 * The fleets the role may list, asked for again FLEETS_POLL_MS after each answer while the page is
 * visible (a hidden tab asks nothing; it asks at once when shown again). A failed question keeps
 * the last list and says why until an answer comes.
 */
export function usePolledFleets(): PolledFleets {
  const [fleets, setFleets] = useState<Fleet[] | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let asking = false;
    const ask = async () => {
      timer = undefined;
      if (asking || document.visibilityState === 'hidden') return;
      asking = true;
      try {
        const answer = await listFleets(abort.signal);
        if (abort.signal.aborted) return;
        setFleets(answer);
        setProblem(undefined);
      } catch (err) {
        if (abort.signal.aborted) return;
        setProblem(failure(err));
      } finally {
        asking = false;
      }
      timer = setTimeout(() => void ask(), FLEETS_POLL_MS);
    };
    const shown = () => {
      if (document.visibilityState === 'visible' && timer === undefined) void ask();
    };
    document.addEventListener('visibilitychange', shown);
    void ask();
    return () => {
      abort.abort();
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', shown);
    };
  }, [version]);
  const refresh = useCallback(() => setVersion((v) => v + 1), []);
  return { fleets, problem, refresh };
}
