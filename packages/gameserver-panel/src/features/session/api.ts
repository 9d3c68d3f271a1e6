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
 * Where the identity provider's sign-in starts: back to this page and route afterwards
 * (`returnTo` is a path under /panel/, the current one with its hash route).
 */
export function oidcLoginUrl(): string {
  const here = new URL(window.location.href);
  const base = new URL(document.baseURI);
  const under = here.pathname.startsWith(base.pathname) ? here.pathname.slice(base.pathname.length) : '';
  const returnTo = `/panel/${under}${here.hash}`;
  return panelUrl(`/panel/auth/login?returnTo=${encodeURIComponent(returnTo)}`);
}
