import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, integerVar, nonEmpty, parseUrl, readSecret } from '@gsp/service-kit';
import type { Env } from '@gsp/service-kit';
import type { AuthMode } from './auth.js';

/** The panel's OIDC sign-in: the control plane is a confidential client of `AUTH_OIDC_ISSUER_URL`. */
export interface PanelOidcClient {
  clientId: string;
  clientSecret: string;
  /** `<PANEL_PUBLIC_URL>auth/callback`, registered at the provider. */
  redirectUri: string;
}

/**
 * The game-server panel (`/panel/`) and its sessions. Every URL the browser is sent to and every
 * cookie attribute come from `PANEL_PUBLIC_URL`, never from request headers, so a forged `Host` or
 * `X-Forwarded-*` cannot move a redirect or a cookie.
 */
export interface PanelConfig {
  /** The folder `npm run build -w packages/gameserver-panel` writes; undefined when it cannot be found. */
  distDir: string | undefined;
  /** `PANEL_PUBLIC_URL`, ending in `/`; undefined when unset (no OIDC sign-in, Origin checked against Host). */
  publicUrl: string | undefined;
  /** Its origin: a cookie-authenticated write whose `Origin` is another is refused. */
  origin: string | undefined;
  /** The session cookie's `Path`: the folder holding `panel/` (`/`, or a proxy's prefix), so `api/v1/` gets it too. */
  cookiePath: string;
  /** The pending OIDC sign-in's cookie `Path`: only `panel/auth/` needs it. */
  loginCookiePath: string;
  /** `Secure` cookies, when the panel is served over https. */
  secureCookies: boolean;
  oidc: PanelOidcClient | undefined;
  /** `PANEL_SESSION_TTL_SECONDS`: how long a Basic or API-key session lasts (an OIDC one ends with its ID token). */
  sessionTtlMs: number;
  /**
   * `PANEL_SIGN_IN_LIMIT`: OIDC sign-ins one client address may start per 10 minutes (how long a
   * pending one is kept), so anonymous starts cannot fill the store with pending sign-ins.
   */
  signInLimit: number;
}

const DEFAULT_TTL_SECONDS = 8 * 3600;
const MAX_TTL_SECONDS = 30 * 86_400;
const DEFAULT_SIGN_IN_LIMIT = 30;

/** The panel workspace's `dist/`, found through its package (a workspace link in this repository). */
function defaultDistDir(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve('@gsp/gameserver-panel/package.json')), 'dist');
  } catch {
    return undefined;
  }
}

/** `PANEL_PUBLIC_URL`, normalised to end in `/`, which must name the `panel/` folder. */
function readPublicUrl(env: Env): URL | undefined {
  const raw = parseUrl(env, 'PANEL_PUBLIC_URL', ['https:', 'http:']);
  if (raw === undefined) return undefined;
  const url = new URL(raw);
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    throw new ConfigError('PANEL_PUBLIC_URL', 'must not carry a query, fragment or credentials');
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  if (!url.pathname.endsWith('/panel/'))
    throw new ConfigError(
      'PANEL_PUBLIC_URL',
      `must be where the control plane's /panel/ is reached (ending in /panel/), got ${JSON.stringify(raw)}`,
    );
  return url;
}

/** `PANEL_OIDC_CLIENT_ID` and `PANEL_OIDC_CLIENT_SECRET`: both or neither; they need oidc on and a public URL. */
function readPanelOidc(
  env: Env,
  modes: ReadonlySet<AuthMode>,
  publicUrl: URL | undefined,
): PanelOidcClient | undefined {
  const clientId = nonEmpty(env, 'PANEL_OIDC_CLIENT_ID');
  const clientSecret = readSecret(env, 'PANEL_OIDC_CLIENT_SECRET');
  if (clientId === undefined && clientSecret === undefined) return undefined;
  if (clientId === undefined)
    throw new ConfigError('PANEL_OIDC_CLIENT_ID', 'is required with PANEL_OIDC_CLIENT_SECRET (both or neither)');
  if (clientSecret === undefined)
    throw new ConfigError('PANEL_OIDC_CLIENT_SECRET', 'is required with PANEL_OIDC_CLIENT_ID (both or neither)');
  if (!modes.has('oidc'))
    throw new ConfigError(
      'PANEL_OIDC_CLIENT_ID',
      'needs oidc authentication on (AUTH_MODE lists oidc): ' +
        'the panel signs in at AUTH_OIDC_ISSUER_URL and maps roles as for bearer tokens',
    );
  if (publicUrl === undefined)
    throw new ConfigError(
      'PANEL_PUBLIC_URL',
      'is required with PANEL_OIDC_CLIENT_ID: the provider sends the browser back to <PANEL_PUBLIC_URL>auth/callback',
    );
  return { clientId, clientSecret, redirectUri: new URL('auth/callback', publicUrl).href };
}

/** `PANEL_*`: where the built panel is, its public URL, its OIDC client and how long sessions last. */
export function readPanel(env: Env, modes: ReadonlySet<AuthMode>): PanelConfig {
  const dir = nonEmpty(env, 'PANEL_DIST_DIR');
  const url = readPublicUrl(env);
  const ttlSeconds = integerVar(env, 'PANEL_SESSION_TTL_SECONDS', DEFAULT_TTL_SECONDS, { max: MAX_TTL_SECONDS });
  return {
    distDir: dir === undefined ? defaultDistDir() : resolve(dir),
    publicUrl: url?.href,
    origin: url?.origin,
    cookiePath: url === undefined ? '/' : new URL('..', url).pathname,
    loginCookiePath: url === undefined ? '/panel/auth/' : new URL('auth/', url).pathname,
    secureCookies: url?.protocol === 'https:',
    oidc: readPanelOidc(env, modes, url),
    sessionTtlMs: ttlSeconds * 1000,
    signInLimit: integerVar(env, 'PANEL_SIGN_IN_LIMIT', DEFAULT_SIGN_IN_LIMIT),
  };
}
