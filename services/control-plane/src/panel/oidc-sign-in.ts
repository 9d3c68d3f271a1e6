import type { FastifyRequest } from 'fastify';
import { randomNonce, randomPKCECodeVerifier, randomState } from 'openid-client';
import { cookieValue, setCookie } from '@gsp/service-kit';
import { asSignInProblem, createSignInClient, returnTarget } from '@gsp/service-kit/browser-app';
import type { SignInClient } from '@gsp/service-kit/browser-app';
import { roleFromClaims, usernameFromClaims } from '../auth/oidc.js';
import type { OidcConfig, PanelConfig } from '../config/index.js';
import type { PanelOidcClient as PanelOidcSettings } from '../config/panel.js';
import { BadRequest, ServiceUnavailable, Unauthorized } from '../errors.js';
import type { Roles } from '../rbac/roles.js';
import { LOGIN_TTL_MS } from './sessions.js';
import type { PanelSessionStore, SessionRecord } from './sessions.js';

/** The state of a sign-in under way, which binds the callback to the browser that started it. */
export const LOGIN_COOKIE = 'gsp_panel_login';

type Logins = Pick<PanelSessionStore, 'saveLogin' | 'takeLogin'>;

/**
 * The panel's OIDC sign-in, one step per route: the authorization-code flow with PKCE against
 * AUTH_OIDC_ISSUER_URL, the pending sign-in kept where sessions are, and the Lax cookie that ties
 * the callback to this browser. The session's principal comes from the ID token through the role
 * mapping bearer tokens use; it ends at the token's `exp`.
 */
export class PanelSignIn {
  private readonly client: SignInClient;
  private readonly publicUrl: string;

  constructor(
    private readonly panel: PanelConfig & { oidc: PanelOidcSettings; publicUrl: string },
    private readonly oidc: OidcConfig,
    private readonly roles: Roles,
    private readonly logins: Logins,
  ) {
    this.client = createSignInClient({ issuerUrl: oidc.issuerUrl, ...panel.oidc });
    this.publicUrl = panel.publicUrl;
  }

  /** The cookie of the sign-in under way (an empty state deletes it). */
  loginCookie(state: string): string {
    return setCookie(LOGIN_COOKIE, state, {
      path: this.panel.loginCookiePath,
      secure: this.panel.secureCookies,
      // Lax: the provider's redirect back is a cross-site navigation.
      sameSite: 'Lax',
      maxAgeSeconds: state === '' ? 0 : LOGIN_TTL_MS / 1000,
    });
  }

  /** Where to send the browser, and the cookie that ties the provider's answer to it. */
  async start(returnToParam: string | undefined): Promise<{ url: string; cookie: string }> {
    const returnTo = returnTarget(returnToParam, this.publicUrl);
    if (returnTo === undefined)
      throw new BadRequest(`returnTo must be a path of the panel, under ${new URL(this.publicUrl).pathname}`);
    const login = { state: randomState(), nonce: randomNonce(), codeVerifier: randomPKCECodeVerifier() };
    const url = await asSignInProblem(this.client.authorizationUrl(login), signInProblems);
    await this.logins.saveLogin(login.state, { nonce: login.nonce, codeVerifier: login.codeVerifier, returnTo });
    return { url: url.href, cookie: this.loginCookie(login.state) };
  }

  /** The provider's answer turned into what the session keeps, if this browser started the sign-in. */
  async complete(
    request: Pick<FastifyRequest, 'headers' | 'url'>,
    state: string | undefined,
  ): Promise<{ record: Extract<SessionRecord, { method: 'oidc' }>; returnTo: string }> {
    const started = cookieValue(request.headers.cookie, LOGIN_COOKIE);
    if (state === undefined || started === undefined || started !== state)
      throw new BadRequest('this sign-in was not started in this browser (or its cookie was lost): sign in again');
    const login = await this.logins.takeLogin(state);
    if (login === undefined)
      throw new BadRequest(
        `this sign-in was already used or took longer than ${LOGIN_TTL_MS / 60_000} minutes: sign in again`,
      );
    const query = new URL(request.url, 'http://callback.invalid').search;
    const { claims } = await asSignInProblem(this.client.complete(query, { ...login, state }), signInProblems);
    const record = {
      method: 'oidc' as const,
      userId: claims.sub,
      username: usernameFromClaims(claims),
      role: roleFromClaims(claims, this.oidc, this.roles),
      expiresAt: claims.exp * 1000,
    };
    return { record, returnTo: login.returnTo };
  }
}

/** The provider's refusals as 401 problems, its absence as a 503. */
const signInProblems = {
  refused: (message: string) => new Unauthorized(message),
  unavailable: (message: string) => new ServiceUnavailable(message),
};
