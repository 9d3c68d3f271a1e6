import { useEffect, useRef, useState } from 'react';
import { panelUrl } from '../../../lib/api';
import { sessionHolds } from '../../../lib/session';
import { serverKey } from '../../../lib/types';
import type { GameServer } from '../../../lib/types';

/** `live`: the feed is open; `paused`: it dropped and the panel is reconnecting. */
export type FeedStatus = 'connecting' | 'live' | 'paused';

export interface ServerFeed {
  status: FeedStatus;
  /** Every game server the caller may list, keyed `namespace/name`; read it again when `version` grows. */
  servers: ReadonlyMap<string, GameServer>;
  version: number;
  /** Whether the first snapshot has come. */
  loaded: boolean;
}

interface Change {
  type: 'added' | 'modified' | 'deleted';
  item: GameServer;
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 10_000;

function parsed<T>(data: string): T | undefined {
  try {
    return JSON.parse(data) as T;
  } catch {
    return undefined;
  }
}

/**
 * Follows `GET /api/v1/events/gameservers`: a snapshot, then changes, kept in one Map. EventSource
 * sends the session cookie and reconnects by itself after a drop (each connection starts with a
 * new snapshot). When the server ends the stream (`event: close`) or refuses a reconnection, the
 * panel asks whether the session still holds (if not, the app shows the sign-in view) and opens a
 * new stream after a growing delay.
 */
export function useServerFeed(): ServerFeed {
  const servers = useRef(new Map<string, GameServer>());
  const [state, setState] = useState({ status: 'connecting' as FeedStatus, version: 0, loaded: false });
  useEffect(() => {
    let source: EventSource | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let delay = FIRST_RETRY_MS;
    let stopped = false;
    const changed = (patch: Partial<typeof state> = {}) =>
      setState((s) => ({ ...s, ...patch, version: s.version + 1 }));

    const reopenLater = () => {
      source?.close();
      setState((s) => ({ ...s, status: 'paused' }));
      void sessionHolds().then((holds) => {
        if (!holds || stopped) return;
        retry = setTimeout(open, delay);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
      });
    };
    const open = () => {
      const es = new EventSource(panelUrl('/api/v1/events/gameservers'));
      source = es;
      es.addEventListener('snapshot', (e: MessageEvent<string>) => {
        const items = parsed<{ items: GameServer[] }>(e.data)?.items ?? [];
        servers.current = new Map(items.map((gs) => [serverKey(gs), gs]));
        delay = FIRST_RETRY_MS;
        changed({ status: 'live', loaded: true });
      });
      es.addEventListener('change', (e: MessageEvent<string>) => {
        const change = parsed<Change>(e.data);
        if (change === undefined) return;
        if (change.type === 'deleted') servers.current.delete(serverKey(change.item));
        else servers.current.set(serverKey(change.item), change.item);
        changed();
      });
      es.addEventListener('close', reopenLater);
      es.addEventListener('error', () => {
        if (es.readyState === EventSource.CLOSED) reopenLater();
        else setState((s) => ({ ...s, status: 'paused' }));
      });
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(retry);
      source?.close();
    };
  }, []);
  return { ...state, servers: servers.current };
}
