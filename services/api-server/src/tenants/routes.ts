import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../auth/actor.js';
import { Conflict, NotFound } from '../errors.js';
import {
  bodyProblemResponses,
  Dns1123Label,
  namedSchema,
  NewSubject,
  OrgParams,
  problem,
  problemResponses,
  Subject,
} from '../schemas.js';
import { deleteMember, LastAdminError, listMembers, listTenants, putMember } from './store.js';

export interface TenantRoutesOptions {
  /** `AUTH_OIDC_ISSUER_URL`: its users are members as `<issuer>#<sub>`. */
  oidcIssuer: string | undefined;
}

const Role = Type.Union([Type.Literal('admin'), Type.Literal('operator'), Type.Literal('viewer')]);
const Member = Type.Object({ subject: Type.String(), role: Role });
export const ListedMemberSchema = namedSchema(
  'Member',
  Type.Object({
    ...Member.properties,
    name: Type.Optional(
      Type.String({
        description: 'what the member is called, as their identity provider said at their last console sign-in',
      }),
    ),
  }),
);
const MemberList = Type.Object({
  members: Type.Array(ListedMemberSchema.ref),
  issuer: Type.Union([Type.String(), Type.Null()], {
    description:
      'AUTH_OIDC_ISSUER_URL: a user who signs in there is a member as `<issuer>#<sub>` ' +
      "(their token's `sub`); null when none is configured",
  }),
});
export const TenantSummarySchema = namedSchema(
  'TenantSummary',
  Type.Object({
    org: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    clusters: Type.Integer({ description: 'clusters registered in the tenant' }),
    members: Type.Integer({ description: 'members of any role' }),
  }),
);
const MemberParams = Type.Object({ org: Dns1123Label, subject: Subject });
const NewMemberParams = Type.Object({ org: Dns1123Label, subject: NewSubject });
const lastAdmin = problem('the change would leave the tenant without an admin');

async function lastAdminIsConflict<T>(change: Promise<T>): Promise<T> {
  try {
    return await change;
  } catch (err) {
    if (err instanceof LastAdminError) throw new Conflict(err.message);
    throw err;
  }
}

/** A tenant's members and their roles; the first member put creates the tenant. */
const tenantRoutes: FastifyPluginAsyncTypebox<TenantRoutesOptions> = async (app, opts) => {
  const tags = ['tenants'];
  const issuer = opts.oidcIssuer ?? null;

  app.route({
    method: 'GET',
    url: '/api/v1/tenants',
    config: { permission: 'platform.admin' },
    schema: {
      tags,
      summary: 'Every tenant, with how many clusters and members it has (platform admins)',
      description:
        "Read-only. A tenant's clusters and their CLI access are at `/api/v1/tenants/{org}/clusters`, its members at " +
        '`/api/v1/tenants/{org}/members`; platform admins may read both for every tenant.',
      response: { 200: Type.Object({ tenants: Type.Array(TenantSummarySchema.ref) }), ...problemResponses },
    },
    handler: async () => ({ tenants: await listTenants(app.pg) }),
  });

  app.route({
    method: 'GET',
    url: '/api/v1/tenants/:org/members',
    config: { permission: 'members.manage' },
    schema: {
      tags,
      params: OrgParams,
      response: { 200: MemberList, ...problemResponses },
    },
    handler: async (request) => ({ members: await listMembers(app.pg, request.params.org), issuer }),
  });

  app.route({
    method: 'PUT',
    url: '/api/v1/tenants/:org/members/:subject',
    config: { permission: 'members.manage', createsTenant: true },
    schema: {
      tags,
      params: NewMemberParams,
      body: Type.Object({ role: Role }, { additionalProperties: false }),
      description: "Sets the role; 409 when it would take away the tenant's last admin.",
      response: {
        200: Type.Object({ org: Type.String(), ...Member.properties }),
        ...problemResponses,
        ...bodyProblemResponses,
        409: lastAdmin,
      },
    },
    handler: async (request) => {
      const { org, subject } = request.params;
      const role = request.body.role;
      await lastAdminIsConflict(putMember(app.pg, org, { subject, role }, actorOf(request), request.id));
      return { org, subject, role: request.body.role };
    },
  });

  app.route({
    method: 'DELETE',
    url: '/api/v1/tenants/:org/members/:subject',
    config: { permission: 'members.manage' },
    schema: {
      tags,
      params: MemberParams,
      description: "Removes the member; 409 for the tenant's last admin.",
      response: { 204: Type.Null({ description: 'removed' }), ...problemResponses, 409: lastAdmin },
    },
    handler: async (request, reply) => {
      const { org, subject } = request.params;
      if (!(await lastAdminIsConflict(deleteMember(app.pg, org, subject, actorOf(request), request.id)))) {
        throw new NotFound(`${subject} is not a member of tenant ${org}`);
      }
      return reply.code(204).send(null);
    },
  });
};

export default tenantRoutes;
