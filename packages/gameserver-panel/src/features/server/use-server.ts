import { useEffect, useState } from 'react';
import { ApiError, panelUrl } from '../../lib/api';
import { failure } from '@gsp/ui';
import { getServer } from './api';
import type { ServerRef } from './api';
import type { GameServerView } from './types';

export type LiveServer =
  | { state: 'loading' }
  | { state: 'error'; message: string }
  | { state: 'gone' }
  | { state: 'done'; server: GameServerView };

const FEED = '/api/v1/events/gameservers';

const isThis = (ref: ServerRef, item: GameServerView | undefined): item is GameServerView =>
  item !== undefined && item.namespace === ref.namespace && item.name === ref.name;

function parse<T>(data: string): T | undefined {
  try {
    return JSON.parse(data) as T;
  } catch {
    return undefined;
  }
}

/**
 * One game server, kept live: fetched (its 404 or 403 is a sentence), then followed on the list's
 * feed, whose snapshot (each reconnection sends one) and changes carry the whole item.
 */
export function useServer(ref: ServerRef): LiveServer {
  const { namespace, name } = ref;
  const [live, setLive] = useState<LiveServer>({ state: 'loading' });
  useEffect(() => {
    const here = { namespace, name };
    const abort = new AbortController();
    const show = (server: GameServerView) => setLive({ state: 'done', server });
    const gone = () => setLive({ state: 'gone' });
    const fetchNow = () =>
      getServer(here, abort.signal).then(show, (err: unknown) => {
        if (abort.signal.aborted) return;
        if (err instanceof ApiError && err.status === 404) gone();
        else setLive({ state: 'error', message: failure(err) });
      });
    void fetchNow();
    const feed = new EventSource(panelUrl(FEED));
    feed.addEventListener('snapshot', (e: MessageEvent<string>) => {
      const found = parse<{ items: GameServerView[] }>(e.data)?.items.find((item) => isThis(here, item));
      // Not in the feed's snapshot: gone, or in a namespace the role may get but not list. Ask.
      if (found) show(found);
      else void fetchNow();
    });
    feed.addEventListener('change', (e: MessageEvent<string>) => {
      const change = parse<{ type: string; item: GameServerView }>(e.data);
      if (change === undefined || !isThis(here, change.item)) return;
      if (change.type === 'deleted') gone();
      else show(change.item);
    });
    return () => {
      abort.abort();
      feed.close();
    };
  }, [namespace, name]);
  return live;
}
