import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { OidcConfig, PanelConfig } from '../config/index.js';
import type { PanelOidcClient } from '../config/panel.js';
import { TooManyRequests } from '../errors.js';
import { PanelSignIn } from './oidc-sign-in.js';
import { LOGIN_TTL_MS } from './sessions.js';
import type { Roles } from '../rbac/roles.js';

export interface PanelOidcRoutesOptions {
  panel: PanelConfig & { oidc: PanelOidcClient; publicUrl: string };
  oidc: OidcConfig;
  roles: Roles;
}

/** `GET /panel/auth/login` and `/panel/auth/callback`: the panel's OIDC sign-in (authorization code with PKCE). */
const panelOidcRoutes: FastifyPluginAsyncTypebox<PanelOidcRoutesOptions> = async (app, { panel, oidc, roles }) => {
  const flow = new PanelSignIn(panel, oidc, roles, app.panelSessions.logins);
  // Each start keeps a pending sign-in for LOGIN_TTL_MS: a budget per address over the same time
  // bounds what anonymous starts can keep (the request budget, per address, is far larger).
  const signInBudget = {
    max: panel.signInLimit,
    timeWindow: LOGIN_TTL_MS,
    errorResponseBuilder: () =>
      new TooManyRequests(
        `too many sign-ins started from this address: at most ${panel.signInLimit} ` +
          `per ${LOGIN_TTL_MS / 60_000} minutes`,
      ),
  };

  app.route({
    method: 'GET',
    url: '/panel/auth/login',
    config: { public: true, rateLimit: signInBudget },
    schema: { hide: true, querystring: Type.Object({ returnTo: Type.Optional(Type.String({ maxLength: 2048 })) }) },
    handler: async (request, reply) => {
      const { url, cookie } = await flow.start(request.query.returnTo);
      reply.header('set-cookie', cookie);
      return reply.redirect(url, 303);
    },
  });

  app.route({
    method: 'GET',
    url: '/panel/auth/callback',
    config: { public: true },
    schema: { hide: true, querystring: Type.Object({ state: Type.Optional(Type.String({ maxLength: 512 })) }) },
    handler: async (request, reply) => {
      const { record, returnTo } = await flow.complete(request, request.query.state);
      request.principal = { userId: record.userId, username: record.username, role: record.role, method: 'oidc' };
      const session = await app.panelSessions.create(record);
      reply.header('set-cookie', [flow.loginCookie(''), session]);
      return reply.redirect(returnTo, 303);
    },
  });
};

export default panelOidcRoutes;
