import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { routeOf } from '../rbac/table.js';

const Session = Type.Object({
  userId: Type.String(),
  username: Type.String(),
  role: Type.String(),
  authMethod: Type.String(),
});

/** Who the caller is, as the control plane sees them (what a CLI shows after logging in). */
const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.route({
    ...routeOf('getSession'),
    schema: { response: { 200: Session } },
    handler: async (request) => {
      const p = request.principal;
      return { userId: p?.userId ?? '', username: p?.username ?? '', role: p?.role ?? '', authMethod: p?.method ?? '' };
    },
  });
};

export default sessionRoutes;
