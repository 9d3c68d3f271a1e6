import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../plugins/auth.js';
import { Conflict, NotFound } from '../../errors.js';
import {
  bodyProblemResponses,
  ClusterParams,
  Dns1123Label,
  OrgParams,
  problem,
  problemResponses,
  Subject,
} from '../../schemas.js';
import { deleteMember, LastAdminError, listMembers, putMember } from '../../tenants/store.js';
import {
  deleteCluster,
  DuplicateClusterError,
  findCluster,
  listClusters,
  registerCluster,
  rotateAgentToken,
} from '../../clusters/store.js';

const Role = Type.Union([Type.Literal('admin'), Type.Literal('operator'), Type.Literal('viewer')]);
const Member = Type.Object({ subject: Type.String(), role: Role });
const MemberParams = Type.Object({ org: Dns1123Label, subject: Subject });
const lastAdmin = problem('the change would leave the tenant without an admin');
const AgentToken = Type.String({ description: 'shown once; only its hash is stored' });
const ClusterSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  org: Type.String(),
  createdBy: Type.String(),
  createdAt: Type.String(),
});

async function lastAdminIsConflict<T>(change: Promise<T>): Promise<T> {
  try {
    return await change;
  } catch (err) {
    if (err instanceof LastAdminError) throw new Conflict(err.message);
    throw err;
  }
}

const tenantRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['tenants'];

  app.get(
    '/api/v1/tenants/:org/members',
    {
      config: { permission: 'members.manage' },
      schema: {
        tags,
        params: OrgParams,
        response: { 200: Type.Object({ members: Type.Array(Member) }), ...problemResponses },
      },
    },
    async (request) => ({ members: await listMembers(app.pg, request.params.org) }),
  );

  app.put(
    '/api/v1/tenants/:org/members/:subject',
    {
      config: { permission: 'members.manage', createsTenant: true },
      schema: {
        tags,
        params: MemberParams,
        body: Type.Object({ role: Role }, { additionalProperties: false }),
        description: "Sets the role; 409 when it would take away the tenant's last admin.",
        response: {
          200: Type.Object({ org: Type.String(), ...Member.properties }),
          ...problemResponses,
          ...bodyProblemResponses,
          409: lastAdmin,
        },
      },
    },
    async (request) => {
      const { org, subject } = request.params;
      const role = request.body.role;
      await lastAdminIsConflict(putMember(app.pg, org, { subject, role }, actorOf(request), request.id));
      return { org, subject, role: request.body.role };
    },
  );

  app.delete(
    '/api/v1/tenants/:org/members/:subject',
    {
      config: { permission: 'members.manage' },
      schema: {
        tags,
        params: MemberParams,
        description: "Removes the member; 409 for the tenant's last admin.",
        response: { 204: Type.Null({ description: 'removed' }), ...problemResponses, 409: lastAdmin },
      },
    },
    async (request, reply) => {
      const { org, subject } = request.params;
      if (!(await lastAdminIsConflict(deleteMember(app.pg, org, subject, actorOf(request), request.id)))) {
        throw new NotFound(`${subject} is not a member of tenant ${org}`);
      }
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/v1/tenants/:org/clusters',
    {
      config: { permission: 'tenant.read' },
      schema: {
        tags,
        params: OrgParams,
        response: { 200: Type.Object({ clusters: Type.Array(ClusterSchema) }), ...problemResponses },
      },
    },
    async (request) => ({ clusters: await listClusters(app.pg, request.params.org) }),
  );

  app.post(
    '/api/v1/tenants/:org/clusters',
    {
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
    },
    async (request, reply) => {
      try {
        const cluster = await registerCluster(
          app.pg,
          request.params.org,
          request.body.name,
          actorOf(request),
          request.id,
        );
        return reply.code(201).send(cluster);
      } catch (err) {
        if (err instanceof DuplicateClusterError) throw new Conflict(err.message);
        throw err;
      }
    },
  );

  app.get(
    '/api/v1/tenants/:org/clusters/:id',
    {
      config: { permission: 'tenant.read' },
      schema: { tags, params: ClusterParams, response: { 200: ClusterSchema, ...problemResponses } },
    },
    async (request) => {
      const cluster = await findCluster(app.pg, request.params.org, request.params.id);
      if (!cluster) throw new NotFound(`cluster ${request.params.id} not found in tenant ${request.params.org}`);
      return cluster;
    },
  );

  app.delete(
    '/api/v1/tenants/:org/clusters/:id',
    {
      config: { permission: 'clusters.register' },
      schema: {
        tags,
        params: ClusterParams,
        response: { 204: Type.Null({ description: 'deleted' }), ...problemResponses },
      },
    },
    async (request, reply) => {
      if (!(await deleteCluster(app.pg, request.params.org, request.params.id, actorOf(request), request.id))) {
        throw new NotFound(`cluster ${request.params.id} not found in tenant ${request.params.org}`);
      }
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/tenants/:org/clusters/:id/agent-token',
    {
      config: { permission: 'clusters.register' },
      schema: {
        tags,
        params: ClusterParams,
        description:
          'Replaces the agent token: the new one is shown once; the old one stops working and its live tunnel is closed.',
        response: {
          200: Type.Object({
            ...ClusterSchema.properties,
            agentToken: Type.String({ description: 'shown once; only its hash is stored' }),
          }),
          ...problemResponses,
        },
      },
    },
    async (request, reply) => {
      const cluster = await rotateAgentToken(
        app.pg,
        request.params.org,
        request.params.id,
        actorOf(request),
        request.id,
      );
      if (!cluster) throw new NotFound(`cluster ${request.params.id} not found in tenant ${request.params.org}`);
      return reply.header('cache-control', 'no-store').send(cluster);
    },
  );
};

export default tenantRoutes;
