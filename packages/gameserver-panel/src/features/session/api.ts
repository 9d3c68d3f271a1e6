import { panelUrl, send } from '../../lib/api';

/** `POST /panel/auth/sign-in` with a username and password; the answer sets the session cookie. */
export async function signInBasic(username: string, password: string): Promise<void> {
  await send('POST', '/panel/auth/sign-in', { body: { method: 'basic', username, password } });
}

/** `POST /panel/auth/sign-in` with an API key; the answer sets the session cookie. */
export async function signInApiKey(key: string): Promise<void> {
  await send('POST', '/panel/auth/sign-in', { body: { method: 'apikey', key } });
}

/**
 * Where the identity provider's sign-in starts: back to this page and route afterwards. `returnTo`
 * is the page's own path (under the panel's public URL, whatever prefix a proxy adds) and its hash
 * route.
 */
export function oidcLoginUrl(): string {
  const returnTo = `${window.location.pathname}${window.location.hash}`;
  return panelUrl(`/panel/auth/login?returnTo=${encodeURIComponent(returnTo)}`);
}
