import type { Http2Session } from 'node:http2';
import { Code, ConnectError } from '@connectrpc/connect';

export interface SilenceWatch {
  /** Something arrived from the proxy: it is alive. */
  seen(): void;
  stop(): void;
}

/**
 * Pings the proxy once nothing has arrived for half of `intervalMs`, and calls `dead` when no
 * answer has come within the other half: a proxy that vanished without a FIN (a NAT, a killed
 * replica, a node gone) is noticed within one ping interval of its last word, instead of holding
 * the agent on a dead tunnel, and the cluster unreachable through that replica, until TCP gives
 * up. What arrives costs a timestamp (`seen`), not a timer reset per chunk.
 */
export function watchSilence(
  session: Http2Session,
  intervalMs: number,
  dead: (err: ConnectError) => void,
): SilenceWatch {
  const quietMs = intervalMs / 2;
  const answerMs = intervalMs / 2;
  let lastSeen = Date.now();
  let stopped = false;
  let deadline: NodeJS.Timeout | undefined;
  const check = (): void => {
    if (stopped) return;
    const quiet = Date.now() - lastSeen;
    if (quiet < quietMs) {
      timer = setTimeout(check, quietMs - quiet).unref();
      return;
    }
    deadline = setTimeout(() => dead(new ConnectError('PING timed out', Code.Unavailable)), answerMs).unref();
    const answered = (err: Error | null): void => {
      clearTimeout(deadline);
      if (err !== null || stopped) return;
      lastSeen = Date.now();
      check();
    };
    try {
      if (session.destroyed) return clearTimeout(deadline);
      if (session.ping(answered)) return;
    } catch {
      // The session was destroyed meanwhile: its stream reports that.
      return clearTimeout(deadline);
    }
    // Too many pings in flight (never here: one at a time): look again later.
    clearTimeout(deadline);
    timer = setTimeout(check, quietMs).unref();
  };
  let timer = setTimeout(check, quietMs).unref();
  return {
    seen: () => {
      lastSeen = Date.now();
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(deadline);
    },
  };
}
