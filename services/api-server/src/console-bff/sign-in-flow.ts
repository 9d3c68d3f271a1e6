import type pg from 'pg';
import type { FastifyRequest } from 'fastify';
import { randomNonce, randomPKCECodeVerifier, randomState } from 'openid-client';
import { asSignInProblem, returnTarget } from '@gsp/service-kit/browser-app';
import { BadRequest, Forbidden, ServiceUnavailable, TooManyRequests, Unauthorized } from '../errors.js';
import { consoleWriteRefusal } from '../auth/session-cookies.js';
import type { SessionCookies } from '../auth/session-cookies.js';
import type { ConsoleSignIn } from '../config/console-auth.js';
import { cookieValue, LOGIN_COOKIE, SESSION_COOKIE, setCookie } from './cookies.js';
import { rememberName } from '../subjects/names.js';
import { createBffOidcClient } from './oidc-client.js';
import type { BffOidcClient, SignedIn } from './oidc-client.js';
import {
  clientHash,
  createSession,
  endSession,
  LOGIN_TTL_MS,
  readSession,
  recordLogin,
  takeLogin,
} from './sessions.js';

/** What `GET /console/auth/session` answers: never a token. */
export interface SessionJson {
  signedIn: boolean;
  subject?: string;
  name?: string;
  expiresAt?: string;
}

/**
 * The console's sign-in, one step per route: the authorization-code flow with PKCE against the
 * provider, the pending sign-in and the session in PostgreSQL, and the cookies that name them.
 */
export class SignInFlow {
  /** The two cookies, scoped and flagged as CONSOLE_PUBLIC_URL says. */
  readonly cookies: ReturnType<typeof cookieWriter>;
  private readonly oidc: BffOidcClient;

  constructor(
    private readonly pool: pg.Pool,
    private readonly signIn: ConsoleSignIn,
  ) {
    this.oidc = createBffOidcClient(signIn);
    this.cookies = cookieWriter(signIn);
  }

  /** How authentication finds the session a request's cookie names. */
  sessionCookies(): SessionCookies {
    return {
      cookieName: SESSION_COOKIE,
      origin: this.signIn.origin,
      lookup: (id) => readSession(this.pool, id),
    };
  }

  /**
   * Where to send the browser, and the cookie that ties the provider's answer to this browser; a
   * 429 (with `retryAfter`, in seconds) when `clientAddress` has CONSOLE_SIGN_IN_LIMIT under way.
   */
  async start(returnToParam: string | undefined, clientAddress: string): Promise<{ url: string; cookie: string }> {
    const returnTo = returnTarget(returnToParam, this.signIn.publicUrl);
    if (returnTo === undefined)
      throw new BadRequest(`returnTo must be a path of the console, under ${new URL(this.signIn.publicUrl).pathname}`);
    const login = { state: randomState(), nonce: randomNonce(), codeVerifier: randomPKCECodeVerifier() };
    const url = await asSignInProblem(this.oidc.authorizationUrl(login), signInProblems);
    const budget = { client: clientHash(clientAddress), limit: this.signIn.signInLimit };
    const waitMs = await recordLogin(this.pool, login.state, { ...login, returnTo }, budget);
    if (waitMs > 0) {
      const minutes = LOGIN_TTL_MS / 60_000;
      const refusal = new TooManyRequests(
        `too many sign-ins are under way from this address (at most ${budget.limit}, each for ${minutes} minutes): ` +
          'finish one, or try again later',
      );
      throw Object.assign(refusal, { retryAfter: Math.ceil(waitMs / 1000) });
    }
    return { url: url.href, cookie: this.cookies.login(login.state) };
  }

  /**
   * The provider's answer (the callback's `state` and URL) turned into a session, if this browser
   * started the sign-in: who signed in, where to return, and the cookies to set.
   */
  async complete(
    request: Pick<FastifyRequest, 'headers' | 'url'>,
    state: string | undefined,
  ): Promise<{ signedIn: SignedIn; returnTo: string; cookies: string[] }> {
    const started = cookieValue(request.headers.cookie, LOGIN_COOKIE);
    if (state === undefined || started === undefined || started !== state)
      throw new BadRequest('this sign-in was not started in this browser (or its cookie was lost): sign in again');
    const login = await takeLogin(this.pool, state);
    if (login === undefined)
      throw new BadRequest(
        `this sign-in was already used or took longer than ${LOGIN_TTL_MS / 60_000} minutes: sign in again`,
      );
    const query = new URL(request.url, 'http://callback.invalid').search;
    const signedIn = await asSignInProblem(this.oidc.complete(query, { ...login, state }), signInProblems);
    const id = await createSession(this.pool, signedIn, signedIn.expiresAt);
    await rememberName(this.pool, signedIn.subject, signedIn.name);
    const cookies = [this.cookies.login(''), this.cookies.session(id, signedIn.expiresAt)];
    return { signedIn, returnTo: login.returnTo, cookies };
  }

  /** Whether the session cookie in `cookieHeader` names a live session, as whom, until when. */
  async session(cookieHeader: string | undefined): Promise<SessionJson> {
    const id = cookieValue(cookieHeader, SESSION_COOKIE);
    const session = id === undefined ? undefined : await readSession(this.pool, id);
    if (session === undefined) return { signedIn: false };
    return {
      signedIn: true,
      subject: session.subject,
      name: session.name,
      expiresAt: session.expiresAt.toISOString(),
    };
  }

  /** Ends the session the request's cookie names, for every replica; answers the cookie that clears it. */
  async signOut(request: Pick<FastifyRequest, 'headers' | 'method'>): Promise<string> {
    const id = cookieValue(request.headers.cookie, SESSION_COOKIE);
    if (id !== undefined) {
      const refusal = consoleWriteRefusal(request.method, request.headers, this.signIn.origin);
      if (refusal !== undefined) throw new Forbidden(refusal);
      await endSession(this.pool, id);
    }
    return this.cookies.session('', new Date(0));
  }
}

/** The two cookies, scoped and flagged as CONSOLE_PUBLIC_URL says. */
function cookieWriter(signIn: ConsoleSignIn) {
  return {
    /** The sign-in's state: Lax, because the provider's redirect back is a cross-site navigation. */
    login: (state: string) =>
      setCookie(LOGIN_COOKIE, state, {
        path: signIn.loginCookiePath,
        secure: signIn.secureCookies,
        sameSite: 'Lax',
        maxAgeSeconds: state === '' ? 0 : LOGIN_TTL_MS / 1000,
      }),
    /** The session: Strict, and gone with the ID token's expiry (an empty value deletes it). */
    session: (id: string, expiresAt: Date) =>
      setCookie(SESSION_COOKIE, id, {
        path: signIn.cookiePath,
        secure: signIn.secureCookies,
        sameSite: 'Strict',
        maxAgeSeconds: id === '' ? 0 : (expiresAt.getTime() - Date.now()) / 1000,
      }),
  };
}

/** The provider's refusals as 401 problems, its absence as a 503. */
const signInProblems = {
  refused: (message: string) => new Unauthorized(message),
  unavailable: (message: string) => new ServiceUnavailable(message),
};
