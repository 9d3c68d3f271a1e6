import { useEffect, useState } from 'react';
import { apiUrl } from './api';

/** `live`: the event stream is open; `paused`: it dropped and the console is reconnecting. */
export type LiveStatus = 'connecting' | 'live' | 'paused';

export interface Live {
  status: LiveStatus;
  /** Grows whenever what the page shows may have changed: refetch when it does. */
  version: number;
  /** Grows whenever the server refuses a reconnection (perhaps the session ended): ask who is signed in. */
  refusals: number;
}

/** Events after which the page fetches again what it shows (`reload`: events were missed). */
const REFRESHING_EVENTS = ['flag', 'reload', 'cluster', 'agent', 'member'] as const;

/** `event: close` reasons after which the session or the user's rights may have changed. */
const SESSION_CLOSE_REASONS = new Set(['signed-out', 'token-expired', 'access-changed']);

function closeReason(data: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(data);
    if (typeof parsed === 'object' && parsed !== null && 'reason' in parsed && typeof parsed.reason === 'string')
      return parsed.reason;
  } catch {
    // Not JSON: no reason.
  }
  return undefined;
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 10_000;

/**
 * Follows `GET /api/v1/events` while `enabled`. EventSource sends the session cookie and, when a
 * stream drops, reconnects by itself with `Last-Event-ID`, so the server replays what was missed.
 * When the server refuses a reconnection (the stream is then closed for good), a new stream is
 * opened after a growing delay; it starts without an id, so the page refetches everything once it
 * opens. Any reopening also refetches, in case the replay was cut short. An `event: close` naming
 * the session's end or a change of rights (`signed-out`, `token-expired`, `access-changed`) counts
 * as a refusal at once.
 */
export function useLiveUpdates(enabled: boolean): Live {
  const [live, setLive] = useState<Live>({ status: 'connecting', version: 0, refusals: 0 });
  useEffect(() => {
    if (!enabled) return;
    let source: EventSource | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let delay = FIRST_RETRY_MS;
    let dropped = false;
    const refresh = () => setLive((l) => ({ ...l, version: l.version + 1 }));

    const open = () => {
      const es = new EventSource(apiUrl('/api/v1/events'));
      source = es;
      es.addEventListener('open', () => {
        delay = FIRST_RETRY_MS;
        const catchUp = dropped;
        dropped = false;
        setLive((l) => ({ ...l, status: 'live', version: catchUp ? l.version + 1 : l.version }));
      });
      const reopenLater = () => {
        retry = setTimeout(open, delay);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
      };
      es.addEventListener('error', () => {
        dropped = true;
        const refused = es.readyState === EventSource.CLOSED;
        setLive((l) => ({ ...l, status: 'paused', refusals: refused ? l.refusals + 1 : l.refusals }));
        if (refused) reopenLater();
      });
      // The server says why it ends the stream: for the session's end or a change of rights, the page
      // asks at once who is signed in (and what they may see) instead of reconnecting blindly.
      es.addEventListener('close', (e: MessageEvent<string>) => {
        if (!SESSION_CLOSE_REASONS.has(closeReason(e.data) ?? '')) return;
        es.close();
        dropped = true;
        setLive((l) => ({ ...l, status: 'paused', refusals: l.refusals + 1 }));
        reopenLater();
      });
      for (const name of REFRESHING_EVENTS) es.addEventListener(name, refresh);
    };
    open();
    return () => {
      clearTimeout(retry);
      source?.close();
    };
  }, [enabled]);
  return live;
}
