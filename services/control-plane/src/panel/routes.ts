import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cookieValue } from '@gsp/service-kit';
import { secureBrowserPage } from '@gsp/service-kit/browser-app';
import type { ControlPlaneConfig } from '../config/index.js';
import { Forbidden } from '../errors.js';
import { panelCookieRefusal } from './csrf.js';
import { basicHeader, recordOf } from './sign-in.js';
import { sessionView } from './session-view.js';
import type { SignInMethods } from './session-view.js';
import { panelStatic } from './static.js';
import { PANEL_COOKIE } from './sessions.js';
import panelOidcRoutes from './oidc-routes.js';
import { NoContent, SessionAnswer, SignInBody } from './schemas.js';

/**
 * Every `/panel/` answer has the page's security headers and is not cached (the static files set
 * their own caching); sign-in and sign-out come from the panel's own script, which a cross-site
 * form cannot pass for (`X-GSP-Panel: 1`, the panel's origin).
 */
async function guardPanelRequest(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  secureBrowserPage(reply);
  reply.header('cache-control', 'no-store');
  if (request.method !== 'POST') return;
  const origin = app.panelSessions.originOf(request);
  const refusal = panelCookieRefusal(request.method, request.headers, origin, 'a panel sign-in or sign-out');
  if (refusal !== undefined) throw new Forbidden(refusal);
}

/** The panel's sign-in and session routes under `/panel/auth/`, and the built panel under `/panel/`. */
const panelRoutes: FastifyPluginAsyncTypebox<{ config: ControlPlaneConfig }> = async (app, { config }) => {
  const methods: SignInMethods = {
    oidc: config.panel.oidc !== undefined,
    basic: config.modes.has('basic'),
    apikey: config.modes.has('apikey'),
  };
  await app.register(panelStatic, { distDir: config.panel.distDir });
  const { oidc: client, publicUrl } = config.panel;
  if (client !== undefined && publicUrl !== undefined && config.oidc !== undefined)
    await app.register(panelOidcRoutes, {
      panel: { ...config.panel, oidc: client, publicUrl },
      oidc: config.oidc,
      roles: config.roles,
    });
  app.addHook('onRequest', async (request, reply) => guardPanelRequest(app, request, reply));

  app.route({
    method: 'GET',
    url: '/panel/auth/session',
    // Anyone may ask; a credential, when present, is checked and says who.
    config: { authOptional: true },
    schema: {
      tags: ['panel'],
      summary: 'Who is signed in to the panel (by its cookie or a credential header), and what they may do',
      response: { 200: SessionAnswer },
    },
    handler: async (request) => sessionView(request.principal, methods, config.roles),
  });

  app.route({
    method: 'POST',
    url: '/panel/auth/sign-in',
    config: { public: true, errors: [401, 403, 429, 503] },
    schema: {
      tags: ['panel'],
      summary:
        'Sign in to the panel with Basic or an API key: 204 and the gsp_panel session cookie (needs X-GSP-Panel: 1)',
      body: SignInBody,
      response: { 204: NoContent },
    },
    handler: async (request, reply) => {
      const { body } = request;
      const principal =
        body.method === 'basic'
          ? await app.verifyCredential('basic', basicHeader(body.username, body.password), request, reply)
          : await app.verifyCredential('apikey', body.key.trim(), request, reply);
      // The audit line names who signed in.
      request.principal = principal;
      reply.header('set-cookie', await app.panelSessions.create(recordOf(principal, app.panelSessions.ttlMs)));
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'POST',
    url: '/panel/auth/logout',
    config: { public: true, errors: [403, 503] },
    schema: {
      tags: ['panel'],
      summary: 'End the panel session everywhere and delete its cookie (needs X-GSP-Panel: 1)',
      response: { 204: NoContent },
    },
    handler: async (request, reply) => {
      const id = cookieValue(request.headers.cookie, PANEL_COOKIE);
      if (id !== undefined) {
        request.principal = (await app.panelSessions.principalOf(id)) ?? null;
        await app.panelSessions.endById(id, 'signed out');
      }
      reply.header('set-cookie', app.panelSessions.clearCookie());
      return reply.code(204).send(null);
    },
  });
};

export default panelRoutes;
