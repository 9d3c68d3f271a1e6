import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ServiceUnavailable } from '../errors.js';
import { databaseAnswers } from '../db/availability.js';
import { unavailableResponse } from '../schemas.js';

/**
 * `/readyz` answers within this, database stalled or not (Kubernetes' default probe timeout is 1 s; ours allow
 * 2 s).
 */
export const READY_TIMEOUT_MS = 1500;

/** Probes and the OpenAPI document; metrics are served on METRICS_PORT (see server.ts). */
const opsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const config = { public: true };

  app.route({
    method: 'GET',
    url: '/healthz',
    config,
    schema: { tags: ['operations'], response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
    handler: async () => ({ status: 'ok' as const }),
  });

  app.route({
    method: 'GET',
    url: '/readyz',
    config,
    schema: {
      tags: ['operations'],
      description: `200 while the database answers within ${READY_TIMEOUT_MS} ms, else 503 (with Retry-After).`,
      response: { 200: Type.Object({ status: Type.Literal('ready') }), 503: unavailableResponse },
    },
    handler: async () => {
      // Bounded on its own: a probe must answer before the orchestrator's probe timeout, whatever the pool waits for.
      const answers = await databaseAnswers(app.pg, READY_TIMEOUT_MS);
      if (!answers) throw new ServiceUnavailable('the database cannot be reached');
      return { status: 'ready' as const };
    },
  });

  app.route({
    method: 'GET',
    url: '/openapi.json',
    config,
    schema: { hide: true },
    handler: async () => app.swagger(),
  });
};

export default opsRoutes;
