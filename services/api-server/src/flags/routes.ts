import { findFlag } from '@gsp/flags-client';
import type { FlagDefinition, FlagScopeType } from '@gsp/flags-client';
import type { FlagEventScope } from '@gsp/platform-contract';
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../plugins/auth.js';
import { NotFound } from '../errors.js';
import { bodyProblemResponses, ClusterParams, problemResponses } from '../schemas.js';
import { existingCluster } from '../clusters/store.js';

const Source = Type.Union([
  Type.Literal('env'),
  Type.Literal('cluster'),
  Type.Literal('platform'),
  Type.Literal('default'),
]);
const ScopeSchema = Type.Union([
  Type.Object({ type: Type.Literal('platform') }),
  Type.Object({ type: Type.Literal('cluster'), org: Type.String(), clusterId: Type.String() }),
]);
const WriteResultSchema = Type.Object({
  key: Type.String(),
  scope: ScopeSchema,
  value: Type.Union([Type.Boolean(), Type.Null()]),
  effective: Type.Boolean(),
  source: Source,
  envPinned: Type.Boolean(),
});
const FlagListSchema = Type.Object({
  flags: Type.Array(
    Type.Object({
      key: Type.String(),
      value: Type.Boolean({ description: 'the effective value at this scope' }),
      platformDefault: Type.Union([Type.Boolean(), Type.Null()]),
      clusterOverride: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
      source: Source,
      envPinned: Type.Boolean(),
    }),
  ),
});
const SetBody = Type.Object({ value: Type.Boolean() }, { additionalProperties: false });
const FlagParams = Type.Object({ flag: Type.String({ maxLength: 253 }) });
const ClusterFlagParams = Type.Object({ ...ClusterParams.properties, flag: Type.String({ maxLength: 253 }) });

function flagOrThrow(key: string, scope: FlagScopeType): FlagDefinition {
  const flag = findFlag(key);
  if (!flag || !flag.scopes.includes(scope))
    throw new NotFound(`unknown feature flag ${key}${flag ? ` at ${scope} scope` : ''}`);
  return flag;
}

/** Flag values at the platform and at each cluster: read, set, clear. */
const featureFlagRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['feature-flags'];
  const platform: FlagEventScope = { type: 'platform' };
  const clusterScope = async (org: string, id: string): Promise<FlagEventScope> => {
    const cluster = await existingCluster(app.pg, org, id);
    return { type: 'cluster', org, clusterId: cluster.id };
  };

  app.route({
    method: 'GET',
    url: '/api/v1/platform/feature-flags',
    schema: { tags, response: { 200: FlagListSchema, 401: problemResponses[401] } },
    handler: async () => ({ flags: await app.flags.list(platform) }),
  });

  app.route({
    method: 'PUT',
    url: '/api/v1/platform/feature-flags/:flag',
    config: { permission: 'platform.admin' },
    schema: {
      tags,
      params: FlagParams,
      body: SetBody,
      response: { 200: WriteResultSchema, ...problemResponses, ...bodyProblemResponses },
    },
    handler: async (request) => {
      const flag = flagOrThrow(request.params.flag, 'platform');
      const { value } = request.body;
      return app.flags.write({ flag, scope: platform, value, actor: actorOf(request), requestId: request.id });
    },
  });

  app.route({
    method: 'DELETE',
    url: '/api/v1/platform/feature-flags/:flag',
    config: { permission: 'platform.admin' },
    schema: { tags, params: FlagParams, response: { 200: WriteResultSchema, ...problemResponses } },
    handler: async (request) => {
      const flag = flagOrThrow(request.params.flag, 'platform');
      return app.flags.write({ flag, scope: platform, value: null, actor: actorOf(request), requestId: request.id });
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/tenants/:org/clusters/:id/feature-flags',
    config: { permission: 'tenant.read' },
    schema: { tags, params: ClusterParams, response: { 200: FlagListSchema, ...problemResponses } },
    handler: async (request) => ({
      flags: await app.flags.list(await clusterScope(request.params.org, request.params.id)),
    }),
  });

  app.route({
    method: 'PUT',
    url: '/api/v1/tenants/:org/clusters/:id/feature-flags/:flag',
    config: { permission: 'clusters.register' },
    schema: {
      tags,
      params: ClusterFlagParams,
      body: SetBody,
      response: { 200: WriteResultSchema, ...problemResponses, ...bodyProblemResponses },
    },
    handler: async (request) => {
      const flag = flagOrThrow(request.params.flag, 'cluster');
      const scope = await clusterScope(request.params.org, request.params.id);
      const { value } = request.body;
      return app.flags.write({ flag, scope, value, actor: actorOf(request), requestId: request.id });
    },
  });

  app.route({
    method: 'DELETE',
    url: '/api/v1/tenants/:org/clusters/:id/feature-flags/:flag',
    config: { permission: 'clusters.register' },
    schema: { tags, params: ClusterFlagParams, response: { 200: WriteResultSchema, ...problemResponses } },
    handler: async (request) => {
      const flag = flagOrThrow(request.params.flag, 'cluster');
      const scope = await clusterScope(request.params.org, request.params.id);
      return app.flags.write({ flag, scope, value: null, actor: actorOf(request), requestId: request.id });
    },
  });
};

export default featureFlagRoutes;
