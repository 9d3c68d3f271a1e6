import type { FastifyRequest } from 'fastify';

/** Session cookies as the console's sign-in keeps them. */
export interface SessionCookies {
  cookieName: string;
  /** The console's origin: a cookie-authenticated write whose `Origin` is another is refused. */
  origin: string;
  /** The live session a cookie's value names: its subject, end and id hash; undefined when none. */
  lookup(id: string): Promise<{ subject: string; expiresAt: Date; idHash: string } | undefined>;
}

/** The header a state-changing request sent with the session cookie must carry (a form cannot set it). */
export const CONSOLE_HEADER = 'x-gsp-console';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Why a cookie-authenticated request may not change anything, or undefined when it may: a browser
 * sends the cookie with a cross-site form post too (SameSite aside), but no other site can add a
 * custom header without a CORS preflight this server never grants, nor forge `Origin`.
 */
export function consoleWriteRefusal(
  method: string,
  headers: FastifyRequest['headers'],
  origin: string,
): string | undefined {
  if (SAFE_METHODS.has(method)) return undefined;
  if (headers[CONSOLE_HEADER] !== '1')
    return 'a request that changes something with the console session cookie must carry the header X-GSP-Console: 1';
  const sent = headers.origin;
  if (sent !== undefined && sent !== origin)
    return `a request with the console session cookie must come from the console's origin ${origin}, not ${sent}`;
  return undefined;
}
