import type { IncomingHttpHeaders } from 'node:http';

/** The header the panel's scripts send with every change: a cross-site form cannot set it. */
export const PANEL_HEADER = 'x-gsp-panel';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * Why a request authenticated by the panel's session cookie is refused, or undefined when it is
 * not (`what` names the request in the answer): a change (any method but GET and HEAD) must carry
 * `X-GSP-Panel: 1`, and a request that says
 * where it comes from (`Origin`, which browsers send on cross-origin requests, changes and
 * WebSockets) must come from the panel's origin. SameSite=Strict keeps other sites' requests
 * cookieless; this also refuses a sibling origin of the same site.
 */
export function panelCookieRefusal(
  method: string,
  headers: IncomingHttpHeaders,
  origin: string,
  what = 'a request with the panel session cookie',
): string | undefined {
  if (!SAFE_METHODS.has(method) && headers[PANEL_HEADER] !== '1')
    return `${what} that changes something must carry the header X-GSP-Panel: 1`;
  const sent = headers.origin;
  if (sent !== undefined && sent !== origin) return `${what} must come from the panel's origin ${origin}, not ${sent}`;
  return undefined;
}
