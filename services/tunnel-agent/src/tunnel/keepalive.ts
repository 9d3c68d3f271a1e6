import type { Http2Session } from 'node:http2';

/**
 * Connect's session manager pings the proxy once nothing has arrived for half of `intervalMs`, and
 * drops a connection that has not answered within the other half: a proxy that vanished without a
 * FIN (a NAT, a killed replica, a node gone) is noticed within one ping interval of its last word,
 * instead of holding the agent on a dead tunnel, and the cluster unreachable through that replica,
 * until TCP gives up.
 */
export function pingOptions(intervalMs: number): { pingIntervalMs: number; pingTimeoutMs: number } {
  return { pingIntervalMs: intervalMs / 2, pingTimeoutMs: intervalMs / 2 };
}

function ignoreSessionError(): void {
  // Handled through the stream; see `guardSession`.
}

/**
 * Keeps a late keep-alive timer from crashing the agent. Connect's own `error` listener comes off
 * when it leaves a session, but a late stream response can re-arm its PING timer afterwards, whose
 * timeout destroys the session with an error; with no listener left, that error would crash the
 * agent. The same error already reaches the tunnel's stream, which is where it is handled.
 */
export function guardSession(session: Http2Session): void {
  session.on('error', ignoreSessionError);
  // The same re-armed timer can ping a session destroyed meanwhile, and ping() then throws
  // ERR_HTTP2_INVALID_SESSION inside a timer: answer "not sent" instead.
  const ping = session.ping.bind(session);
  session.ping = ((...args: Parameters<Http2Session['ping']>) =>
    session.destroyed ? false : ping(...args)) as Http2Session['ping'];
}
