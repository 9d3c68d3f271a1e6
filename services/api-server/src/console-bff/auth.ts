import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiServerConfig } from '../config/index.js';
import { problem, problemResponses } from '../schemas.js';
import { CallbackQuery, LoginQuery, redirect, SessionSchema } from './auth-schemas.js';
import { ERROR_PAGE_CSP, signInErrorPage } from './error-page.js';
import { sweepPeriodically } from '../db/sweep.js';
import { sweepExpired } from './sessions.js';
import { SignInFlow } from './sign-in-flow.js';

/** A 429 of a sign-in start: the address has as many sign-ins under way as it may. */
const tooManySignIns = problem(
  'this address has CONSOLE_SIGN_IN_LIMIT sign-ins under way; retry after `Retry-After` seconds',
  { 'Retry-After': Type.Integer({ description: "seconds until the address's oldest sign-in expires" }) },
);

/** Statuses a browser is shown as a page rather than problem+json. */
const PAGE_STATUSES = new Set([400, 401, 429, 503]);

/**
 * Login and callback are top-level navigations: a browser gets a page saying what went wrong and
 * how to start again (at `loginUrl`); other clients the problem+json every route answers.
 */
function asPage(loginUrl: string) {
  return (err: Error & { statusCode?: number; retryAfter?: number }, request: FastifyRequest, reply: FastifyReply) => {
    const status = err.statusCode;
    if (err.retryAfter !== undefined) reply.header('retry-after', String(err.retryAfter));
    const wantsHtml = (request.headers.accept ?? '').includes('text/html');
    if (!wantsHtml || status === undefined || !PAGE_STATUSES.has(status)) throw err;
    return reply
      .code(status)
      .header('content-security-policy', ERROR_PAGE_CSP)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(signInErrorPage(err.message, loginUrl));
  };
}

/**
 * The console's sign-in (the API server as its backend-for-frontend): the OIDC authorization-code
 * flow with PKCE runs here, the session lives in PostgreSQL, and the browser holds only an
 * HttpOnly cookie naming it. Without `CONSOLE_*` configuration nothing is registered.
 */
export default fp<{ config: ApiServerConfig }>(
  async (app, { config }) => {
    const signIn = config.consoleAuth;
    if (signIn === undefined) return;
    const flow = new SignInFlow(app.pg, signIn);
    // Every replica deletes, whether or not anyone signs in, the sign-ins nobody came back for and
    // the sessions past their end; a row is deleted once by whoever comes first.
    sweepPeriodically(app, {
      name: 'console sign-in sweep',
      intervalMs: signIn.sweepIntervalMs,
      run: () => sweepExpired(app.pg),
      done: (swept) => {
        if (swept.logins + swept.sessions > 0) app.log.debug(swept, 'expired console sign-ins and sessions deleted');
      },
    });
    app.acceptSessionCookies(flow.sessionCookies());
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    const errorHandler = asPage(new URL('auth/login', signIn.publicUrl).href);
    const tags = ['console'];

    routes.route({
      method: 'GET',
      url: '/console/auth/login',
      config: { public: true },
      schema: {
        tags,
        summary: 'Starts signing in to the console at the identity provider',
        querystring: LoginQuery,
        response: { ...redirect, 400: problemResponses[400], 429: tooManySignIns, 503: problemResponses[503] },
      },
      errorHandler,
      handler: async (request, reply) => {
        const { url, cookie } = await flow.start(request.query.returnTo, request.ip);
        return reply.header('set-cookie', cookie).redirect(url, 303);
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
      errorHandler,
      handler: async (request, reply) => {
        // Whatever happens next, this sign-in is over.
        reply.header('set-cookie', flow.cookies.login(''));
        const { signedIn, returnTo, cookies } = await flow.complete(request, request.query.state);
        request.log.info({ subject: signedIn.subject, expiresAt: signedIn.expiresAt }, 'console sign-in');
        return reply.header('set-cookie', cookies).redirect(returnTo, 303);
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
        return flow.session(request.headers.cookie);
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
        const cookie = await flow.signOut(request);
        return reply.header('set-cookie', cookie).code(204).send(null);
      },
    });
  },
  { name: 'console-bff-auth', dependencies: ['db', 'auth'] },
);
