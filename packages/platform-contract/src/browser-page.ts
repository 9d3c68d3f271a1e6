/**
 * The Content-Security-Policy of every browser app the platform serves (the API server's web
 * console, the control plane's game-server panel): the page may load its own script and style
 * files and call its own origin, nothing else: no inline script or style, no framing, no `<base>`.
 * Forms post only to this origin.
 */
export const BROWSER_APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** Vite names every file under assets/ after a hash of its content: a changed file gets a new name. */
export const HASHED_ASSET_CACHE = 'public, max-age=31536000, immutable';
