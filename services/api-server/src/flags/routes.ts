import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../auth/actor.js';
import { bodyProblemResponses, ClusterParams, problemResponses } from '../schemas.js';
import { SubjectNames, withNames } from '../subjects/names.js';
import { namedRecord } from './record.js';
import { CONFIRM_HEADER, FlagRequests } from './requests.js';
import type { FlagListItem } from './service.js';
import { ClusterFlagParams, FlagListSchema, FlagParams, ImpactSchema, SetBody, WriteResultSchema } from './schemas.js';

type App = Parameters<FastifyPluginAsyncTypebox>[0];
const tags = ['feature-flags'];

/** Flag values at the platform and at each cluster: read, set, clear. */
const featureFlagRoutes: FastifyPluginAsyncTypebox<{ platformId: string }> = async (app, opts) => {
  const requests = new FlagRequests(app.pg, app.flags, opts.platformId);
  platformFlagRoutes(app, requests, new SubjectNames(app.pg));
  clusterFlagRoutes(app, requests);
};

/** The list with each record's actor named where the platform knows them (from memory when it can). */
function named(answer: { flags: FlagListItem[] }, names: SubjectNames) {
  const actors = answer.flags.map((item) => item.platformRecord?.actor);
  return withNames(names.of(actors), (known) =>
    known.size === 0
      ? answer
      : { flags: answer.flags.map((item) => ({ ...item, platformRecord: namedRecord(item.platformRecord, known) })) },
  );
}

function platformFlagRoutes(app: App, requests: FlagRequests, names: SubjectNames): void {
  app.route({
    method: 'GET',
    url: '/api/v1/platform/feature-flags',
    schema: { tags, response: { 200: FlagListSchema, 401: problemResponses[401] } },
    // Not async: the hot path answers from memory without a promise (Fastify sends what a handler returns).
    handler: (request) => {
      const answer = requests.platformList(actorOf(request));
      return answer instanceof Promise ? answer.then((a) => named(a, names)) : named(answer, names);
    },
  });

  app.route({
    method: 'PUT',
    url: '/api/v1/platform/feature-flags/:flag',
    config: { permission: 'platform.admin' },
    schema: {
      tags,
      params: FlagParams,
      body: SetBody,
      response: { 200: WriteResultSchema.ref, ...problemResponses, ...bodyProblemResponses },
    },
    handler: async (request) => {
      const via = { consoleSession: request.viaConsoleSession, confirmation: request.headers[CONFIRM_HEADER] };
      return requests.setPlatform(actorOf(request), request.params.flag, request.body, via, request.id);
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/platform/feature-flags/:flag/impact',
    config: { permission: 'platform.admin' },
    schema: {
      tags,
      summary: 'What switching the flag off platform-wide would reach (for a confirmation)',
      params: FlagParams,
      response: { 200: ImpactSchema, ...problemResponses },
    },
    handler: async (request) => requests.platformOffImpact(request.params.flag),
  });

  app.route({
    method: 'DELETE',
    url: '/api/v1/platform/feature-flags/:flag',
    config: { permission: 'platform.admin' },
    schema: { tags, params: FlagParams, response: { 200: WriteResultSchema.ref, ...problemResponses } },
    handler: async (request) => requests.clearPlatform(actorOf(request), request.params.flag, request.id),
  });
}

function clusterFlagRoutes(app: App, requests: FlagRequests): void {
  app.route({
    method: 'GET',
    url: '/api/v1/tenants/:org/clusters/:id/feature-flags',
    config: { permission: 'tenant.read' },
    schema: { tags, params: ClusterParams, response: { 200: FlagListSchema, ...problemResponses } },
    handler: async (request) => requests.clusterList(actorOf(request), request.params),
  });

  app.route({
    method: 'PUT',
    url: '/api/v1/tenants/:org/clusters/:id/feature-flags/:flag',
    config: { permission: 'clusters.register' },
    schema: {
      tags,
      params: ClusterFlagParams,
      body: SetBody,
      response: { 200: WriteResultSchema.ref, ...problemResponses, ...bodyProblemResponses },
    },
    handler: async (request) => requests.setCluster(actorOf(request), request.params, request.body, request.id),
  });

  app.route({
    method: 'DELETE',
    url: '/api/v1/tenants/:org/clusters/:id/feature-flags/:flag',
    config: { permission: 'clusters.register' },
    schema: { tags, params: ClusterFlagParams, response: { 200: WriteResultSchema.ref, ...problemResponses } },
    handler: async (request) => requests.clearCluster(actorOf(request), request.params, request.id),
  });
}

export default featureFlagRoutes;
