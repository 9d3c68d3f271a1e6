import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../plugins/auth.js';
import { platformAdminCheck } from '../flags/caller.js';
import { CliAccessWithMessageSchema, cliAccessWithMessage, mayNamePlatformAdmin } from '../kubeconfig/access.js';
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
import type { ClusterWithAgent } from './store.js';

export interface ClusterRoutesOptions {
  /** Whose platform admins may see the names in access records. */
  platformId: string;
  /** `PROXY_TUNNEL_PUBLIC_URL`: where the agent dials, answered with each new agent token. */
  tunnelUrl: string;
}

const AgentToken = Type.String({ description: 'shown once; only its hash is stored' });
const TunnelUrl = Type.String({
  description: "where the cluster's tunnel agent dials the cluster proxy (PROXY_TUNNEL_PUBLIC_URL): its proxyTunnelUrl",
});
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
/** A cluster as the reads answer it, with its agent's presence and its effective CLI access. */
const ClusterReadSchema = Type.Object({
  ...ClusterSchema.properties,
  agent: AgentSchema,
  cliAccess: {
    ...CliAccessWithMessageSchema,
    description: "the cluster's effective cli_access.enabled, as GET .../access answers it, with kubectl's refusal",
  },
});
/** What a new agent token is answered with. */
const WithAgentToken = Type.Object({ ...ClusterSchema.properties, agentToken: AgentToken, tunnelUrl: TunnelUrl });

/** A tenant's clusters: registration, deletion and the agent token that opens each one's tunnel. */
const clusterRoutes: FastifyPluginAsyncTypebox<ClusterRoutesOptions> = async (app, opts) => {
  const tags = ['tenants'];
  const tunnelUrl = opts.tunnelUrl.replace(/\/+$/, '');
  const isPlatformAdmin = platformAdminCheck(app.pg, opts.platformId);
  /**
   * The clusters with their access states. Evaluations are answered from the flags client's memory;
   * whether the caller is a platform admin is asked only when a record would name one.
   */
  const withAccess = async (clusters: ClusterWithAgent[], caller: string) => {
    const evaluated = await Promise.all(
      clusters.map(async (cluster) => {
        const access = await app.flagsClient.cliAccess({ org: cluster.org, clusterId: cluster.id });
        return { cluster, access };
      }),
    );
    const mayName = evaluated.some(({ access }) => access.record !== undefined && mayNamePlatformAdmin(access.record));
    const admin = mayName && (await isPlatformAdmin(caller));
    return evaluated.map(({ cluster, access }) => ({
      ...cluster,
      cliAccess: cliAccessWithMessage(cluster.id, access, admin),
    }));
  };

  app.route({
    method: 'GET',
    url: '/api/v1/tenants/:org/clusters',
    config: { permission: 'tenant.read' },
    schema: {
      tags,
      params: OrgParams,
      response: { 200: Type.Object({ clusters: Type.Array(ClusterReadSchema) }), ...problemResponses },
    },
    handler: async (request) => ({
      clusters: await withAccess(await listClusters(app.pg, request.params.org), actorOf(request)),
    }),
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
        201: WithAgentToken,
        ...problemResponses,
        ...bodyProblemResponses,
        409: problem('a cluster of that name exists in the tenant'),
      },
    },
    handler: async (request, reply) => {
      try {
        const { org } = request.params;
        const cluster = await registerCluster(app.pg, org, request.body.name, actorOf(request), request.id);
        return reply
          .code(201)
          .header('cache-control', 'no-store')
          .send({ ...cluster, tunnelUrl });
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
    schema: { tags, params: ClusterParams, response: { 200: ClusterReadSchema, ...problemResponses } },
    handler: async (request) => {
      const cluster = await readCluster(app.pg, request.params.org, request.params.id);
      return (await withAccess([cluster], actorOf(request)))[0];
    },
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
        200: WithAgentToken,
        ...problemResponses,
      },
    },
    handler: async (request, reply) => {
      const { org, id } = request.params;
      const cluster = await rotateAgentToken(app.pg, org, id, actorOf(request), request.id);
      if (!cluster) throw new NotFound(`cluster ${id} not found in tenant ${org}`);
      return reply.header('cache-control', 'no-store').send({ ...cluster, tunnelUrl });
    },
  });
};

export default clusterRoutes;
