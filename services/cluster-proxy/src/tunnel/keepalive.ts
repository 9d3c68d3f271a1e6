import type { Http2Session } from 'node:http2';

/**
 * One keep-alive probe: a PING, and the session destroyed if no answer comes within
 * `timeoutMs`. Resolves true when the peer answered. Safe on a session that is already
 * closing: the interval that calls it can fire between `destroy()` and the `close` event, and
 * `ping()` throws on a destroyed session, which would take the whole proxy down.
 */
export function probe(session: Http2Session, timeoutMs: number): Promise<boolean> {
  if (session.destroyed || session.closed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const deadline = setTimeout(() => {
      session.destroy(new Error('the agent stopped answering pings'));
      resolve(false);
    }, timeoutMs);
    deadline.unref();
    const settle = (answered: boolean) => {
      clearTimeout(deadline);
      resolve(answered);
    };
    try {
      const sent = session.ping((err) => {
        if (err && !session.destroyed) session.destroy(err);
        settle(!err);
      });
      if (!sent) settle(false); // too many pings in flight: the earlier one still counts
    } catch {
      settle(false);
    }
  });
}

/**
 * Pings `session` every `intervalMs` until it closes. An agent that vanished without a FIN (a
 * NAT or a node gone) would otherwise keep its tunnel registered and every request to it hanging.
 */
export function keepAlive(session: Http2Session, intervalMs: number): void {
  const timer = setInterval(() => void probe(session, intervalMs / 2), intervalMs);
  timer.unref();
  session.once('close', () => clearInterval(timer));
}
