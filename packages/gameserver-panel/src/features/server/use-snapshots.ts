import { useCallback, useEffect, useState } from 'react';
import { useLoad } from '@gsp/ui';
import type { Loaded } from '@gsp/ui';
import { listSnapshots } from './api';
import type { ServerRef } from './api';
import type { SnapshotView } from './types';

const FIRST_POLL_MS = 1000;
const MAX_POLL_MS = 10_000;

/** Still being cut: neither ready nor failed. */
export const pending = (s: SnapshotView) => !s.readyToUse && s.error === null;

/**
 * The server's snapshots, newest first; `refresh` reloads them. While one is still being cut, the
 * list is polled, 1 s at first and twice as long each time up to 10 s, until none is.
 */
export function useSnapshots(ref: ServerRef): { loaded: Loaded<SnapshotView[]>; refresh: () => void } {
  const { namespace, name } = ref;
  const [version, setVersion] = useState(0);
  const [delay, setDelay] = useState(FIRST_POLL_MS);
  const load = useCallback(
    async (signal: AbortSignal) => {
      const list = await listSnapshots({ namespace, name }, signal);
      return [...list].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
    },
    [namespace, name],
  );
  const loaded = useLoad(load, version);
  const waiting = loaded.state === 'done' && loaded.data.some(pending);
  useEffect(() => {
    if (!waiting) return;
    const timer = setTimeout(() => {
      setDelay((d) => Math.min(d * 2, MAX_POLL_MS));
      setVersion((v) => v + 1);
    }, delay);
    return () => clearTimeout(timer);
  }, [waiting, delay, loaded]);
  const refresh = useCallback(() => {
    setDelay(FIRST_POLL_MS);
    setVersion((v) => v + 1);
  }, []);
  return { loaded, refresh };
}
