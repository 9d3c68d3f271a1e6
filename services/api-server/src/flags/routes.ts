import { CLI_ACCESS_ENABLED, findFlag } from '@gsp/flags-client';
import type { FlagDefinition, FlagScopeType } from '@gsp/flags-client';
import {
  isPlatformAdmin,
  PLATFORM_ADMIN_ACTOR,
  platformResource,
  readBindings,
  tenantResource,
  tenantRole,
} from '@gsp/platform-contract';
import type { FlagEventScope } from '@gsp/platform-contract';
import { InvalidRequestError } from '@gsp/service-kit';
import type { FieldError } from '@gsp/service-kit';
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../plugins/auth.js';
import { Forbidden, NotFound } from '../errors.js';
import { bodyProblemResponses, ClusterParams, problemResponses } from '../schemas.js';
import { existingCluster } from '../clusters/store.js';
import { platformAdminCheck } from './caller.js';
import { MaybeRecordSchema, parseExpiry, reasonProblem, REASON_MAX_LENGTH } from './record.js';
import { platformOffImpact } from '../console/impact.js';

/** The console's typed confirmation of a platform-wide off: the platform id, in this header. */
export const CONFIRM_HEADER = 'x-gsp-confirm';

const ImpactSchema = Type.Object({
  platformId: Type.String({ description: 'what the typed confirmation (X-GSP-Confirm) must say' }),
  clustersAffected: Type.Integer({ description: 'clusters without an override of their own for the flag' }),
  tunnelsOpen: Type.Integer({ description: 'agent tunnels open now, across every cluster' }),
});

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
  platformRecord: MaybeRecordSchema,
  clusterRecord: Type.Optional(MaybeRecordSchema),
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
      platformRecord: MaybeRecordSchema,
      clusterRecord: Type.Optional(MaybeRecordSchema),
    }),
  ),
});
const SetBody = Type.Object(
  {
    value: Type.Boolean(),
    reason: Type.Optional(
      Type.String({
        description: `why, shown to tenants and kubectl users: 1 to ${REASON_MAX_LENGTH} printable characters`,
      }),
    ),
    expiresAt: Type.Optional(
      Type.String({
        description: 'RFC 3339, in the future, at most 30 days ahead: the value is cleared then, as a DELETE would',
      }),
    ),
  },
  { additionalProperties: false },
);
type SetBodyType = { value: boolean; reason?: string; expiresAt?: string };

/** The reason and expiry of a PUT, checked: a 400 names each rule broken. */
function checkedRecord(body: SetBodyType): { reason?: string; expiresAt?: number } {
  const errors: FieldError[] = [];
  const out: { reason?: string; expiresAt?: number } = {};
  if (body.reason !== undefined) {
    const problem = reasonProblem(body.reason);
    if (problem !== undefined) errors.push({ in: 'body', pointer: '#/reason', detail: problem });
    else out.reason = body.reason;
  }
  if (body.expiresAt !== undefined) {
    const expiry = parseExpiry(body.expiresAt, Date.now());
    if ('problem' in expiry) errors.push({ in: 'body', pointer: '#/expiresAt', detail: expiry.problem });
    else out.expiresAt = expiry.at;
  }
  if (errors.length > 0) throw new InvalidRequestError(errors);
  return out;
}
const FlagParams = Type.Object({ flag: Type.String({ maxLength: 253 }) });
const ClusterFlagParams = Type.Object({ ...ClusterParams.properties, flag: Type.String({ maxLength: 253 }) });

function flagOrThrow(key: string, scope: FlagScopeType): FlagDefinition {
  const flag = findFlag(key);
  if (!flag || !flag.scopes.includes(scope))
    throw new NotFound(`unknown feature flag ${key}${flag ? ` at ${scope} scope` : ''}`);
  return flag;
}

/** Flag values at the platform and at each cluster: read, set, clear. */
const featureFlagRoutes: FastifyPluginAsyncTypebox<{ platformId: string }> = async (app, opts) => {
  const tags = ['feature-flags'];
  const platformRes = platformResource(opts.platformId);
  const isAdmin = platformAdminCheck(app.pg, opts.platformId);
  const callerIsPlatformAdmin = (request: FastifyRequest): Promise<boolean> => isAdmin(actorOf(request));
  /** What the writer is, as records keep it: `platform-admin` or the tenant role. */
  const actorRoleOf = async (request: FastifyRequest, org: string | undefined): Promise<string> => {
    const resources = org === undefined ? [platformRes] : [platformRes, tenantResource(org)];
    const bindings = await readBindings(app.pg, actorOf(request), resources);
    if (isPlatformAdmin(bindings, opts.platformId)) return PLATFORM_ADMIN_ACTOR;
    const role = org === undefined ? undefined : tenantRole(bindings, org);
    // The route's permission check passed a moment ago; a role removed since is a refusal.
    if (role === undefined) throw new Forbidden('this requires a role in the tenant');
    return role;
  };
  const platform: FlagEventScope = { type: 'platform' };
  const clusterScope = async (org: string, id: string): Promise<FlagEventScope> => {
    const cluster = await existingCluster(app.pg, org, id);
    return { type: 'cluster', org, clusterId: cluster.id };
  };

  app.route({
    method: 'GET',
    url: '/api/v1/platform/feature-flags',
    schema: { tags, response: { 200: FlagListSchema, 401: problemResponses[401] } },
    // Not async: the hot path answers from memory without a promise (Fastify sends what a handler
    // returns). A value to read, or a record whose actor depends on who asks, takes the async path.
    handler: (request) => {
      const subject = actorOf(request);
      const flags = app.flags.listFromMemory(platform, isAdmin.remembered(subject));
      if (flags !== undefined) return { flags };
      return (async () => {
        const anonymous = await app.flags.list(platform, false);
        if (!anonymous.some((item) => item.platformRecord?.actor === null)) return { flags: anonymous };
        // Flag reads outlive a database outage (the flags client serves the last values seen);
        // whether the caller may see a platform admin's name is not worth a 503: then it is not shown.
        const admin = await isAdmin(subject).catch(() => false);
        return { flags: admin ? await app.flags.list(platform, true) : anonymous };
      })();
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
      response: { 200: WriteResultSchema, ...problemResponses, ...bodyProblemResponses },
    },
    handler: async (request) => {
      const flag = flagOrThrow(request.params.flag, 'platform');
      const { value } = request.body;
      // The console's confirmation is enforced here, not only in the page; bearer calls are as the spec says.
      if (request.viaConsoleSession && flag.key === CLI_ACCESS_ENABLED && !value) {
        if (request.headers[CONFIRM_HEADER] !== opts.platformId)
          throw new Forbidden(
            `switching ${flag.key} off for the whole platform from the console needs the typed confirmation: ` +
              `the header X-GSP-Confirm: ${opts.platformId}`,
          );
      }
      return app.flags.write({
        flag,
        scope: platform,
        value,
        ...checkedRecord(request.body),
        actor: actorOf(request),
        actorRole: PLATFORM_ADMIN_ACTOR,
        requestId: request.id,
        callerIsPlatformAdmin: true,
      });
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
    handler: async (request) => ({
      platformId: opts.platformId,
      ...(await platformOffImpact(app.pg, flagOrThrow(request.params.flag, 'platform').key)),
    }),
  });

  app.route({
    method: 'DELETE',
    url: '/api/v1/platform/feature-flags/:flag',
    config: { permission: 'platform.admin' },
    schema: { tags, params: FlagParams, response: { 200: WriteResultSchema, ...problemResponses } },
    handler: async (request) => {
      const flag = flagOrThrow(request.params.flag, 'platform');
      return app.flags.write({
        flag,
        scope: platform,
        value: null,
        actor: actorOf(request),
        actorRole: PLATFORM_ADMIN_ACTOR,
        requestId: request.id,
        callerIsPlatformAdmin: true,
      });
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/tenants/:org/clusters/:id/feature-flags',
    config: { permission: 'tenant.read' },
    schema: { tags, params: ClusterParams, response: { 200: FlagListSchema, ...problemResponses } },
    handler: async (request) => {
      const scope = await clusterScope(request.params.org, request.params.id);
      return { flags: await app.flags.list(scope, await callerIsPlatformAdmin(request)) };
    },
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
      const record = checkedRecord(request.body);
      const scope = await clusterScope(request.params.org, request.params.id);
      const actorRole = await actorRoleOf(request, request.params.org);
      const { value } = request.body;
      return app.flags.write({
        flag,
        scope,
        value,
        ...record,
        actor: actorOf(request),
        actorRole,
        requestId: request.id,
        callerIsPlatformAdmin: actorRole === PLATFORM_ADMIN_ACTOR,
      });
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
      const actorRole = await actorRoleOf(request, request.params.org);
      return app.flags.write({
        flag,
        scope,
        value: null,
        actor: actorOf(request),
        actorRole,
        requestId: request.id,
        callerIsPlatformAdmin: actorRole === PLATFORM_ADMIN_ACTOR,
      });
    },
  });
};

export default featureFlagRoutes;
