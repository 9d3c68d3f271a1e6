import { Type } from 'typebox';
import type { Static } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NO_CONTROL_CHARACTERS_PATTERN, SUBJECT_MAX_LENGTH } from '@gsp/platform-contract';
import { BadRequest } from '../errors.js';
import { OrgParams, problemResponses } from '../schemas.js';
import { readAuditLog } from './store.js';

const AuditLogItem = Type.Object({
  id: Type.String(),
  action: Type.String(),
  actor: Type.String(),
  resource: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
  requestId: Type.Optional(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
});

const encodeCursor = (id: string): string => Buffer.from(`a:${id}`).toString('base64url');
function decodeCursor(cursor: string): bigint {
  const match = /^a:(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match?.[1]) throw new BadRequest('cursor is not one this server issued');
  return BigInt(match[1]);
}

const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 64, description: 'the `nextCursor` of the previous page' })),
  action: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[a-z][a-z0-9_.-]*$',
      description: 'only entries of this action, such as `featureflags.set` (send it again with each `cursor`)',
    }),
  ),
  actor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: SUBJECT_MAX_LENGTH,
      pattern: NO_CONTROL_CHARACTERS_PATTERN,
      description: 'only entries by this actor, a subject as the entries name it, or `system:expiry`',
    }),
  ),
});
const Page = Type.Object({ items: Type.Array(AuditLogItem), nextCursor: Type.Union([Type.String(), Type.Null()]) });

/** The platform's audit log and each tenant's share of it, newest first, one page at a time. */
const auditLogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const page = async (query: Static<typeof PageQuery>, org?: string) => {
    const { limit = 50, cursor, action, actor } = query;
    // One extra row tells whether another page exists.
    const before = cursor === undefined ? undefined : decodeCursor(cursor);
    const rows = await readAuditLog(app.pg, limit + 1, before, { org, action, actor });
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    return { items, nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null };
  };

  app.route({
    method: 'GET',
    url: '/api/v1/platform/audit',
    config: { permission: 'platform.admin' },
    schema: { tags: ['audit'], querystring: PageQuery, response: { 200: Page, ...problemResponses } },
    handler: async (request) => page(request.query),
  });

  app.route({
    method: 'GET',
    url: '/api/v1/tenants/:org/audit',
    config: { permission: 'members.manage' },
    schema: {
      tags: ['audit'],
      description:
        "The tenant's rows: its members, its clusters (registration, deletion, agent tokens) and their flags.",
      params: OrgParams,
      querystring: PageQuery,
      response: { 200: Page, ...problemResponses },
    },
    handler: async (request) => page(request.query, request.params.org),
  });
};

export default auditLogRoutes;
