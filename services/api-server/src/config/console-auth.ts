import { ConfigError, durationVar, integerVar, nonEmpty, parseUrl, readSecret } from '@gsp/service-kit';
import type { Env } from '@gsp/service-kit';

/**
 * The console's sign-in: the API server is an OpenID Connect confidential client of
 * `AUTH_OIDC_ISSUER_URL` (authorization-code flow with PKCE) and keeps sessions in PostgreSQL.
 *
 * Every URL the browser sees is derived from `CONSOLE_PUBLIC_URL`, never from request headers:
 * behind a TLS-terminating proxy or a path prefix nothing forwarded needs trusting, and a forged
 * `Host` or `X-Forwarded-*` header cannot move a redirect or a cookie.
 */
export interface ConsoleSignIn {
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  /** `CONSOLE_PUBLIC_URL`, ending in `/`: where the console is, and where sign-in returns to. */
  publicUrl: string;
  /** Its origin: a cookie-authenticated write whose `Origin` is another is refused. */
  origin: string;
  /** `<publicUrl>auth/callback`, registered at the provider. */
  redirectUri: string;
  /**
   * The session cookie's `Path`: the folder holding the console, so the API beside it
   * (`<that folder>api/v1/...`) receives it too; `/` for `https://platform.example/console/`.
   */
  cookiePath: string;
  /** The pending sign-in's cookie `Path`: only the callback needs it. */
  loginCookiePath: string;
  /** `Secure` cookies, when the console is served over https. */
  secureCookies: boolean;
  /** `CONSOLE_SIGN_IN_LIMIT`: sign-ins one client address may have under way (each kept at most 10 minutes). */
  signInLimit: number;
  /** `CONSOLE_SIGN_IN_SWEEP_INTERVAL`: how often sign-ins nobody came back for, and ended sessions, are deleted. */
  sweepIntervalMs: number;
}

/** Unset (all three variables absent) means the console has no sign-in and session cookies are ignored. */
export type ConsoleAuthConfig = ConsoleSignIn | undefined;

const VARIABLES = ['CONSOLE_OIDC_CLIENT_ID', 'CONSOLE_OIDC_CLIENT_SECRET', 'CONSOLE_PUBLIC_URL'] as const;

export function readConsoleAuthConfig(env: Env): ConsoleAuthConfig {
  const clientId = nonEmpty(env, 'CONSOLE_OIDC_CLIENT_ID');
  const clientSecret = readSecret(env, 'CONSOLE_OIDC_CLIENT_SECRET');
  const rawPublicUrl = parseUrl(env, 'CONSOLE_PUBLIC_URL', ['https:', 'http:']);
  const values = [clientId, clientSecret, rawPublicUrl];
  if (values.every((v) => v === undefined)) return undefined;
  const missing = VARIABLES.find((_, i) => values[i] === undefined);
  if (missing !== undefined) throw new ConfigError(missing, `is required with ${VARIABLES.join(', ')} (all or none)`);

  const issuerUrl = parseUrl(env, 'AUTH_OIDC_ISSUER_URL', ['https:', 'http:']);
  if (issuerUrl === undefined)
    throw new ConfigError(
      'AUTH_OIDC_ISSUER_URL',
      'is required with CONSOLE_OIDC_CLIENT_ID: the console signs in there',
    );

  const url = new URL(rawPublicUrl as string);
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    throw new ConfigError('CONSOLE_PUBLIC_URL', 'must not carry a query, fragment or credentials');
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  const publicUrl = url.href;
  return {
    issuerUrl,
    clientId: clientId as string,
    clientSecret: clientSecret as string,
    publicUrl,
    origin: url.origin,
    redirectUri: new URL('auth/callback', publicUrl).href,
    cookiePath: new URL('..', publicUrl).pathname,
    loginCookiePath: new URL('auth/', publicUrl).pathname,
    secureCookies: url.protocol === 'https:',
    signInLimit: integerVar(env, 'CONSOLE_SIGN_IN_LIMIT', 30),
    sweepIntervalMs: durationVar(env, 'CONSOLE_SIGN_IN_SWEEP_INTERVAL', 60_000, 10),
  };
}
