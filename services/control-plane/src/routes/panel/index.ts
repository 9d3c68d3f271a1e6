import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ControlPlaneConfig } from '../../config.js';
import { RESOURCES, VERBS } from '../../rbac/roles.js';
import { sessionView } from '../../panel/session-view.js';
import type { SignInMethods } from '../../panel/session-view.js';
import { panelStatic, securePanelReply } from '../../panel/static.js';

const Methods = Type.Object({ oidc: Type.Boolean(), basic: Type.Boolean(), apikey: Type.Boolean() });
const SignedOut = Type.Object({ signedIn: Type.Literal(false), methods: Methods });
const SignedIn = Type.Object({
  signedIn: Type.Literal(true),
  methods: Methods,
  userId: Type.String(),
  username: Type.String(),
  role: Type.Union([Type.String(), Type.Null()]),
  authMethod: Type.Union([Type.Literal('oidc'), Type.Literal('basic'), Type.Literal('apikey'), Type.Literal('none')]),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  permissions: Type.Array(
    Type.Object({
      resource: Type.String({ description: `one of ${RESOURCES.join(', ')}` }),
      verb: Type.String({ description: `one of ${VERBS.join(', ')}` }),
      namespaces: Type.Union([Type.Literal('*'), Type.Array(Type.String())]),
    }),
  ),
});

/** The panel's sign-in and session routes under `/panel/auth/`, and the built panel under `/panel/`. */
const panelRoutes: FastifyPluginAsyncTypebox<{ config: ControlPlaneConfig }> = async (app, { config }) => {
  const methods: SignInMethods = {
    oidc: config.panel.oidc !== undefined,
    basic: config.modes.has('basic'),
    apikey: config.modes.has('apikey'),
  };
  await app.register(panelStatic, { distDir: config.panel.distDir });
  app.addHook('onRequest', async (_request, reply) => securePanelReply(reply));

  app.route({
    method: 'GET',
    url: '/panel/auth/session',
    // Anyone may ask; a credential, when present, is checked and says who.
    config: { authOptional: true },
    schema: { hide: true, response: { 200: Type.Union([SignedOut, SignedIn]) } },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return sessionView(request.principal, methods, config.roles);
    },
  });
};

export default panelRoutes;
