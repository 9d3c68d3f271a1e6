import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../auth/actor.js';
import { bodyProblemResponses, ClusterParams, Dns1123Label, OrgParams, problem, problemResponses } from '../schemas.js';
import { ClusterReadSchema, WithAgentToken } from './schemas.js';
import { ClusterService } from './service.js';

export interface ClusterRoutesOptions {
  /** Whose platform admins may see the names in access records. */
  platformId: string;
  /** `PROXY_TUNNEL_PUBLIC_URL`: where the agent dials, answered with each new agent token. */
  tunnelUrl: string;
}

/** A tenant's clusters: registration, deletion and the agent token that opens each one's tunnel. */
const clusterRoutes: FastifyPluginAsyncTypebox<ClusterRoutesOptions> = async (app, opts) => {
  const tags = ['tenants'];
  const clusters = new ClusterService(app.pg, app.flagsClient, opts.platformId, opts.tunnelUrl);

  app.route({
    method: 'GET',
    url: '/api/v1/tenants/:org/clusters',
    config: { permission: 'tenant.read' },
    schema: {
      tags,
      params: OrgParams,
      response: { 200: Type.Object({ clusters: Type.Array(ClusterReadSchema.ref) }), ...problemResponses },
    },
    handler: async (request) => ({ clusters: await clusters.list(actorOf(request), request.params.org) }),
  });

  app.route({
    method: 'POST',
    url: '/api/v1/tenants/:org/clusters',
    config: { permission: 'clusters.register' },
    schema: {
      tags,
      params: OrgParams,
      body: Type.Object({ name: Dns1123Label }, { additionalProperties: false }),
      response: {
        201: WithAgentToken.ref,
        ...problemResponses,
        ...bodyProblemResponses,
        409: problem('a cluster of that name exists in the tenant'),
      },
    },
    handler: async (request, reply) => {
      const cluster = await clusters.register(actorOf(request), request.params.org, request.body.name, request.id);
      return reply.code(201).header('cache-control', 'no-store').send(cluster);
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/tenants/:org/clusters/:id',
    config: { permission: 'tenant.read' },
    schema: { tags, params: ClusterParams, response: { 200: ClusterReadSchema.ref, ...problemResponses } },
    handler: async (request) => clusters.read(actorOf(request), request.params.org, request.params.id),
  });

  app.route({
    method: 'DELETE',
    url: '/api/v1/tenants/:org/clusters/:id',
    config: { permission: 'clusters.register' },
    schema: {
      tags,
      params: ClusterParams,
      response: { 204: Type.Null({ description: 'deleted' }), ...problemResponses },
    },
    handler: async (request, reply) => {
      await clusters.delete(actorOf(request), request.params.org, request.params.id, request.id);
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'POST',
    url: '/api/v1/tenants/:org/clusters/:id/agent-token',
    config: { permission: 'clusters.register' },
    schema: {
      tags,
      params: ClusterParams,
      description:
        'Replaces the agent token: the new one is shown once; the old one stops working and its live tunnel is closed.',
      response: { 200: WithAgentToken.ref, ...problemResponses },
    },
    handler: async (request, reply) => {
      const { org, id } = request.params;
      const cluster = await clusters.rotateAgentToken(actorOf(request), org, id, request.id);
      return reply.header('cache-control', 'no-store').send(cluster);
    },
  });
};

export default clusterRoutes;
