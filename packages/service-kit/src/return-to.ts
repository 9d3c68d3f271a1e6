import { hasControlCharacters } from './text.js';

/**
 * Where to send the browser after sign-in to a browser app served at `publicUrl` (the web
 * console, the game-server panel): `returnTo` when it is a path of the app itself (same origin,
 * under the app's path), never another site; the app's root when unset. Undefined when
 * `returnTo` is given but is not such a path.
 */
export function returnTarget(returnTo: string | undefined, publicUrl: string): string | undefined {
  if (returnTo === undefined || returnTo === '') return publicUrl;
  // Path-absolute only: `//host`, `/\host` and schemes would leave the origin in some browser.
  if (
    !returnTo.startsWith('/') ||
    returnTo.startsWith('//') ||
    returnTo.includes('\\') ||
    hasControlCharacters(returnTo)
  )
    return undefined;
  const base = new URL(publicUrl);
  let target: URL;
  try {
    target = new URL(returnTo, base);
  } catch {
    return undefined;
  }
  // A path such as `/console/../api` resolves outside; the resolved path is what the browser goes to.
  if (target.origin !== base.origin || !target.pathname.startsWith(base.pathname)) return undefined;
  return target.href;
}
