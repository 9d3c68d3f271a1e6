import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendProblem } from '@gsp/service-kit';
import { routeOf } from '../rbac/table.js';

const opsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.route({
    ...routeOf('health'),
    schema: { tags: ['operations'], response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
    handler: async () => ({ status: 'ok' as const }),
  });

  const notReady = (): string | undefined => {
    if (!app.apikeys.ready) return 'the API key index has not been loaded from Kubernetes yet';
    if (!app.profiles.ready) return 'the profiles have not been loaded from Kubernetes yet';
    if (!app.agones.gameServers.ready || !app.agones.fleets.ready)
      return 'the Agones game servers and fleets have not been loaded from Kubernetes yet';
    if (app.auditExport?.blocked())
      return 'the audit spool is full (AUDIT_SPOOL_FULL=block) and requests are refused until its sinks catch up';
    return undefined;
  };
  // Probes ask every few hundred milliseconds while the cluster cannot be reached: not being ready
  // is no failure of the request, so it is one warning per reason, without a stack, not an error per probe.
  let warned: string | undefined;
  app.route({
    ...routeOf('readiness', [503]),
    schema: { tags: ['operations'], response: { 200: Type.Object({ status: Type.Literal('ready') }) } },
    handler: async (request, reply) => {
      const reason = notReady();
      if (reason !== warned && reason !== undefined) request.log.warn({ reason }, 'not ready');
      warned = reason;
      if (reason !== undefined) return sendProblem(request, reply, 503, reason);
      return { status: 'ready' as const };
    },
  });

  app.route({
    ...routeOf('openApi'),
    schema: { hide: true },
    handler: async () => app.swagger(),
  });
};

export default opsRoutes;
