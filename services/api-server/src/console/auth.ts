import fp from 'fastify-plugin';
import { randomNonce, randomPKCECodeVerifier, randomState } from 'openid-client';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiServerConfig } from '../config.js';
import { BadRequest, Forbidden, ServiceUnavailable, Unauthorized } from '../errors.js';
import { consoleWriteRefusal } from '../plugins/auth.js';
import { problemResponses } from '../schemas.js';
import type { ConsoleSignIn } from './auth-config.js';
import { cookieValue, LOGIN_COOKIE, SESSION_COOKIE, setCookie } from './cookies.js';
import { createConsoleOidcClient, ProviderUnavailable, SignInRefused } from './oidc-client.js';
import { returnTarget } from './return-to.js';
import { DISPLAY_NAME_MAX_LENGTH } from './display-name.js';
import { ERROR_PAGE_CSP, signInErrorPage } from './error-page.js';
import { createSession, endSession, LOGIN_TTL_MS, readSession, recordLogin, takeLogin } from './sessions.js';

const RETURN_TO_MAX_LENGTH = 2048;

const LoginQuery = Type.Object({
  returnTo: Type.Optional(
    Type.String({
      maxLength: RETURN_TO_MAX_LENGTH,
      description: "a path of the console (under CONSOLE_PUBLIC_URL's path) to open after signing in",
    }),
  ),
});
const CallbackQuery = Type.Object({
  state: Type.Optional(Type.String({ maxLength: 1024 })),
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  error: Type.Optional(Type.String({ maxLength: 1024 })),
});
const SessionSchema = Type.Object({
  signedIn: Type.Boolean(),
  subject: Type.Optional(Type.String({ description: 'as role bindings name it: `<issuer>#<sub>`' })),
  name: Type.Optional(
    Type.String({
      maxLength: DISPLAY_NAME_MAX_LENGTH,
      description:
        "what to call the user: the ID token's `name`, else `email`, else `preferred_username` (or the provider's user info when the ID token has none), else the subject; one line, no control characters",
    }),
  ),
  expiresAt: Type.Optional(Type.String({ description: "RFC 3339: the ID token's expiry, when the session ends" })),
});
const redirect = { 303: { description: 'to the identity provider, or back to the console', type: 'null' } };

/**
 * The console's sign-in (the API server as its backend-for-frontend): the OIDC authorization-code
 * flow with PKCE runs here, the session lives in PostgreSQL, and the browser holds only an
 * HttpOnly cookie naming it. Without `CONSOLE_*` configuration nothing is registered.
 */
export default fp<{ config: ApiServerConfig }>(
  async (app, { config }) => {
    const signIn = config.consoleAuth;
    if (signIn === undefined) return;
    const oidc = createConsoleOidcClient(signIn);
    app.acceptSessionCookies({
      cookieName: SESSION_COOKIE,
      origin: signIn.origin,
      lookup: (id) => readSession(app.pg, id),
    });
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    const loginUrl = new URL('auth/login', signIn.publicUrl).href;
    /**
     * Login and callback are top-level navigations: a browser gets a page saying what went wrong
     * and how to start again; other clients the problem+json every route answers.
     */
    const asPage = (err: Error & { statusCode?: number }, request: FastifyRequest, reply: FastifyReply) => {
      const status = err.statusCode;
      const wantsHtml = (request.headers.accept ?? '').includes('text/html');
      if (!wantsHtml || (status !== 400 && status !== 401 && status !== 503)) throw err;
      return reply
        .code(status)
        .header('content-security-policy', ERROR_PAGE_CSP)
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(signInErrorPage(err.message, loginUrl));
    };
    const tags = ['console'];
    const cookies = cookieWriter(signIn);

    routes.route({
      method: 'GET',
      url: '/console/auth/login',
      config: { public: true },
      schema: {
        tags,
        summary: 'Starts signing in to the console at the identity provider',
        querystring: LoginQuery,
        response: { ...redirect, 400: problemResponses[400], 503: problemResponses[503] },
      },
      errorHandler: (err, request, reply) => asPage(err, request, reply),
      handler: async (request, reply) => {
        const returnTo = returnTarget(request.query.returnTo, signIn.publicUrl);
        if (returnTo === undefined)
          throw new BadRequest(`returnTo must be a path of the console, under ${new URL(signIn.publicUrl).pathname}`);
        const login = { state: randomState(), nonce: randomNonce(), codeVerifier: randomPKCECodeVerifier() };
        const url = await unavailableAs503(oidc.authorizationUrl(login));
        await recordLogin(app.pg, login.state, { ...login, returnTo });
        reply.header('set-cookie', cookies.login(login.state));
        return reply.redirect(url.href, 303);
      },
    });

    routes.route({
      method: 'GET',
      url: '/console/auth/callback',
      config: { public: true },
      schema: {
        tags,
        summary: 'Where the identity provider returns; starts the session and opens the console',
        querystring: CallbackQuery,
        response: { ...redirect, 400: problemResponses[400], 401: problemResponses[401], 503: problemResponses[503] },
      },
      errorHandler: (err, request, reply) => asPage(err, request, reply),
      handler: async (request, reply) => {
        // Whatever happens next, this sign-in is over.
        reply.header('set-cookie', cookies.login(''));
        const state = request.query.state;
        const started = cookieValue(request.headers.cookie, LOGIN_COOKIE);
        if (state === undefined || started === undefined || started !== state)
          throw new BadRequest('this sign-in was not started in this browser (or its cookie was lost): sign in again');
        const login = await takeLogin(app.pg, state);
        if (login === undefined)
          throw new BadRequest(
            `this sign-in was already used or took longer than ${LOGIN_TTL_MS / 60_000} minutes: sign in again`,
          );
        const query = new URL(request.url, 'http://callback.invalid').search;
        const signedIn = await unavailableAs503(oidc.complete(query, { ...login, state }));
        const id = await createSession(app.pg, signedIn, signedIn.expiresAt);
        request.log.info({ subject: signedIn.subject, expiresAt: signedIn.expiresAt }, 'console sign-in');
        reply.header('set-cookie', [cookies.login(''), cookies.session(id, signedIn.expiresAt)]);
        return reply.redirect(login.returnTo, 303);
      },
    });

    routes.route({
      method: 'GET',
      url: '/console/auth/session',
      config: { public: true },
      schema: {
        tags,
        summary: 'Whether this browser is signed in to the console, as whom, until when (never a token)',
        response: { 200: SessionSchema, 503: problemResponses[503] },
      },
      handler: async (request, reply) => {
        reply.header('cache-control', 'no-store');
        const id = cookieValue(request.headers.cookie, SESSION_COOKIE);
        const session = id === undefined ? undefined : await readSession(app.pg, id);
        if (session === undefined) return { signedIn: false };
        return {
          signedIn: true,
          subject: session.subject,
          name: session.name,
          expiresAt: session.expiresAt.toISOString(),
        };
      },
    });

    routes.route({
      method: 'POST',
      url: '/console/auth/logout',
      config: { public: true },
      schema: {
        tags,
        summary: 'Signs out: ends the session for every replica and clears the cookie',
        response: { 204: { description: 'signed out', type: 'null' }, 403: problemResponses[403] },
      },
      handler: async (request, reply) => {
        const id = cookieValue(request.headers.cookie, SESSION_COOKIE);
        if (id !== undefined) {
          const refusal = consoleWriteRefusal(request.method, request.headers, signIn.origin);
          if (refusal !== undefined) throw new Forbidden(refusal);
          await endSession(app.pg, id);
        }
        reply.header('set-cookie', cookies.session('', new Date(0)));
        return reply.code(204).send(null);
      },
    });
  },
  { name: 'console-auth', dependencies: ['db', 'auth'] },
);

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

/** The provider's refusals as 400/401 problems, its absence as a 503: never a 500. */
async function unavailableAs503<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof SignInRefused)
      throw err.status === 400 ? new BadRequest(err.message) : new Unauthorized(err.message);
    if (err instanceof ProviderUnavailable) throw new ServiceUnavailable(err.message);
    throw err;
  }
}
