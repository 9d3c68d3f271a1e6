import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../plugins/auth.js';
import { Conflict, NotFound } from '../errors.js';
import { bodyProblemResponses, ClusterParams, Dns1123Label, OrgParams, problem, problemResponses } from '../schemas.js';
import {
  deleteCluster,
  DuplicateClusterError,
  listClusters,
  readCluster,
  registerCluster,
  rotateAgentToken,
} from './store.js';

const AgentToken = Type.String({ description: 'shown once; only its hash is stored' });
const ClusterSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  org: Type.String(),
  createdBy: Type.String(),
  createdAt: Type.String(),
});
const AgentSchema = Type.Object(
  {
    connected: Type.Boolean({ description: 'a cluster proxy replica holds a live tunnel from its agent' }),
    since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'RFC 3339: since when (its oldest live tunnel); null while disconnected',
    }),
  },
  {
    description:
      "the cluster's tunnel agent as the proxies last renewed it: a proxy that dies without a goodbye stops counting when its lease (PRESENCE_LEASE) runs out",
  },
);
/** A cluster as the reads answer it, with its agent's presence. */
const ClusterWithAgentSchema = Type.Object({ ...ClusterSchema.properties, agent: AgentSchema });

/** A tenant's clusters: registration, deletion and the agent token that opens each one's tunnel. */
const clusterRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['tenants'];

  app.route({
    method: 'GET',
    url: '/api/v1/tenants/:org/clusters',
    config: { permission: 'tenant.read' },
    schema: {
      tags,
      params: OrgParams,
      response: { 200: Type.Object({ clusters: Type.Array(ClusterWithAgentSchema) }), ...problemResponses },
    },
    handler: async (request) => ({ clusters: await listClusters(app.pg, request.params.org) }),
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
        201: Type.Object({ ...ClusterSchema.properties, agentToken: AgentToken }),
        ...problemResponses,
        ...bodyProblemResponses,
        409: problem('a cluster of that name exists in the tenant'),
      },
    },
    handler: async (request, reply) => {
      try {
        const { org } = request.params;
        const cluster = await registerCluster(app.pg, org, request.body.name, actorOf(request), request.id);
        return reply.code(201).send(cluster);
      } catch (err) {
        if (err instanceof DuplicateClusterError) throw new Conflict(err.message);
        throw err;
      }
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/tenants/:org/clusters/:id',
    config: { permission: 'tenant.read' },
    schema: { tags, params: ClusterParams, response: { 200: ClusterWithAgentSchema, ...problemResponses } },
    handler: async (request) => readCluster(app.pg, request.params.org, request.params.id),
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
      if (!(await deleteCluster(app.pg, request.params.org, request.params.id, actorOf(request), request.id))) {
        throw new NotFound(`cluster ${request.params.id} not found in tenant ${request.params.org}`);
      }
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
      response: {
        200: Type.Object({ ...ClusterSchema.properties, agentToken: AgentToken }),
        ...problemResponses,
      },
    },
    handler: async (request, reply) => {
      const { org, id } = request.params;
      const cluster = await rotateAgentToken(app.pg, org, id, actorOf(request), request.id);
      if (!cluster) throw new NotFound(`cluster ${id} not found in tenant ${org}`);
      return reply.header('cache-control', 'no-store').send(cluster);
    },
  });
};

export default clusterRoutes;
