import { ApiError, getJson } from '../../lib/api';
import type { JsonAnswer, paths } from '../../lib/api';

/** `GET /api/v1/me`. */
export type Me = JsonAnswer<paths['/api/v1/me']['get']>;
type SessionAnswer = JsonAnswer<paths['/console/auth/session']['get']>;

/** `name`: who is signed in, in words (the session's name, from the identity provider); else the subject. */
export type Session = { signedIn: false } | { signedIn: true; me: Me; name: string };

const SIGNED_OUT: Session = { signedIn: false };

async function me(signal: AbortSignal, name?: string): Promise<Session> {
  try {
    const answer = await getJson<Me>('/api/v1/me', signal);
    return { signedIn: true, me: answer, name: name !== undefined && name !== '' ? name : answer.subject };
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return SIGNED_OUT;
    throw err;
  }
}

/**
 * Who is signed in. The server's session answer decides; where the API server does not serve the
 * console's sign-in (404), `GET /api/v1/me` does, so a client that carries its own credentials
 * (a bearer token set by a proxy or a test) sees the signed-in page.
 */
export async function loadSession(signal: AbortSignal): Promise<Session> {
  let answer: SessionAnswer;
  try {
    answer = await getJson<SessionAnswer>('/console/auth/session', signal);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return SIGNED_OUT;
    if (err instanceof ApiError && err.status === 404) return me(signal);
    throw err;
  }
  if (answer.signedIn === false) return SIGNED_OUT;
  return me(signal, answer.name);
}
