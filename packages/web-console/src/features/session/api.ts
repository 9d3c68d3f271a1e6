import { ApiError, getJson } from '../../lib/api';

export type Role = 'admin' | 'operator' | 'viewer';

/** `GET /api/v1/me`. */
export interface Me {
  subject: string;
  platformAdmin: boolean;
  tenants: { org: string; role: Role }[];
}

export type Session = { signedIn: false } | { signedIn: true; me: Me };

const SIGNED_OUT: Session = { signedIn: false };

async function me(signal: AbortSignal): Promise<Session> {
  try {
    return { signedIn: true, me: await getJson<Me>('/api/v1/me', signal) };
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
  let answer: { signedIn?: unknown };
  try {
    answer = await getJson<{ signedIn?: unknown }>('/console/auth/session', signal);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return SIGNED_OUT;
    if (err instanceof ApiError && err.status === 404) return me(signal);
    throw err;
  }
  if (answer.signedIn === false) return SIGNED_OUT;
  return me(signal);
}
