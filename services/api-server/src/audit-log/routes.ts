import { Type } from 'typebox';
import type { Static } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { InvalidRequestError } from '@gsp/service-kit';
import { CLUSTER_ID_MAX_LENGTH, NO_CONTROL_CHARACTERS_PATTERN, SUBJECT_MAX_LENGTH } from '@gsp/platform-contract';
import { BadRequest, NotAcceptable } from '../errors.js';
import { namedSchema, OrgParams, problem, problemResponses, SafeIdentifier } from '../schemas.js';
import { auditDownload } from './download.js';
import { csvLine, CSV_COLUMNS, csvRecord, MEDIA_TYPES, ndjsonLine, negotiateFormat } from './formats.js';
import { compareInstants, parseInstant } from './instant.js';
import type { Instant } from './instant.js';
import { readAuditLog } from './store.js';
import type { AuditLogFilter } from './store.js';

export const AuditEntrySchema = namedSchema(
  'AuditEntry',
  Type.Object({
    id: Type.String(),
    action: Type.String(),
    actor: Type.String(),
    resource: Type.String(),
    details: Type.Record(Type.String(), Type.Unknown()),
    requestId: Type.Optional(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
  }),
);

const encodeCursor = (id: string): string => Buffer.from(`a:${id}`).toString('base64url');
function decodeCursor(cursor: string): bigint {
  const match = /^a:(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match?.[1]) throw new BadRequest('cursor is not one this server issued');
  return BigInt(match[1]);
}

const MAX_PAGE = 500;
// A + offset sent unencoded arrives as a space (form encoding): say so, as that is the usual mistake.
const DATE_TIME_RULE =
  'must be an RFC 3339 date-time with a time zone, such as 2026-11-26T12:00:00Z (in a URL, write a + offset as %2B)';
const DateTime = (description: string) =>
  Type.String({
    maxLength: 64,
    pattern: '^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})$',
    errorMessage: DATE_TIME_RULE,
    description,
  });

const AuditQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE,
      default: 50,
      description: 'entries per JSON page; for every matching entry at once, download with `format`',
    }),
  ),
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
  cluster: Type.Optional(
    SafeIdentifier(
      CLUSTER_ID_MAX_LENGTH,
      'only entries about this cluster id: its registration, deletion and agent tokens ' +
        '(`resource` `cluster:<id>`) and its flags',
    ),
  ),
  since: Type.Optional(DateTime('only entries written at or after this RFC 3339 date-time')),
  until: Type.Optional(DateTime('only entries written before this RFC 3339 date-time')),
  format: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('ndjson'), Type.Literal('csv')], {
      description:
        '`ndjson` or `csv`: every matching entry, oldest first, as a file to save (no `limit` or `cursor`); ' +
        '`json`: pages. Without it, `Accept` chooses; it wins over `Accept`',
    }),
  ),
});
type AuditQuery = Static<typeof AuditQuery>;

const Page = Type.Object({
  items: Type.Array(AuditEntrySchema.ref),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

const auditResponses = {
  200: {
    description: 'a page of entries, newest first; or, as NDJSON or CSV, every matching entry, oldest first',
    content: {
      'application/json': { schema: Page },
      [MEDIA_TYPES.get('ndjson')!]: {
        schema: Type.String({ description: 'one entry per line, as the JSON page writes it' }),
      },
      [MEDIA_TYPES.get('csv')!]: {
        schema: Type.String({
          description:
            `RFC 4180 with a header row (${CSV_COLUMNS.join(', ')}); \`details\` as its JSON. A cell that ` +
            "begins with =, +, -, @, tab, CR or ' is prefixed with ' so that no spreadsheet runs it as a " +
            "formula: remove one leading ' to get the value back",
        }),
      },
    },
  },
  ...problemResponses,
  406: problem('`Accept` names none of application/json, application/x-ndjson and text/csv'),
};

/** `since` and `until` as instants, each checked; 400 naming the field when one is not a real date-time. */
function timeRange(query: AuditQuery): { since?: Instant; until?: Instant } {
  const range: { since?: Instant; until?: Instant } = {};
  for (const field of ['since', 'until'] as const) {
    const text = query[field];
    if (text === undefined) continue;
    const instant = parseInstant(text);
    if (instant === undefined)
      throw new InvalidRequestError([{ in: 'query', pointer: `#/${field}`, detail: `${field} ${DATE_TIME_RULE}` }]);
    range[field] = instant;
  }
  if (range.since && range.until && compareInstants(range.since, range.until) >= 0)
    throw new InvalidRequestError([{ in: 'query', pointer: '#/until', detail: 'until must be later than since' }]);
  return range;
}

/** A page larger than the most is refused by the schema; this says what to do instead, before it runs. */
async function pointLargePagesToDownloads(request: FastifyRequest): Promise<void> {
  const limit = (request.query as { limit?: unknown } | undefined)?.limit;
  if (typeof limit === 'string' && /^\d+$/.test(limit) && Number(limit) > MAX_PAGE) {
    const detail =
      `limit must be at most ${MAX_PAGE}; ` + 'for every matching entry at once, download with ?format=ndjson (or csv)';
    throw new InvalidRequestError([{ in: 'query', pointer: '#/limit', detail }]);
  }
}

/** `audit-<org or platform>-<UTC time>.<ext>`: only letters, digits, dot, dash and underscore. */
function filename(org: string | undefined, extension: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
  return `audit-${(org ?? 'platform').replace(/[^A-Za-z0-9._-]/g, '_')}-${stamp}.${extension}`;
}

/** The platform's audit log and each tenant's share of it: pages newest first, or all of it as a file. */
const auditLogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const read = async (request: FastifyRequest, reply: FastifyReply, query: AuditQuery, org?: string) => {
    reply.header('vary', 'Accept');
    const format = negotiateFormat(query.format, request.headers.accept);
    if (format === undefined)
      throw new NotAcceptable(`Accept names none of the types served here: ${[...MEDIA_TYPES.values()].join(', ')}`);
    const { limit, cursor, action, actor, cluster } = query;
    const filter: AuditLogFilter = { org, action, actor, cluster, ...timeRange(query) };

    if (format === 'json') {
      // One extra row tells whether another page exists.
      const pageSize = limit ?? 50;
      const before = cursor === undefined ? undefined : decodeCursor(cursor);
      const rows = await readAuditLog(app.pg, pageSize + 1, before, filter);
      const items = rows.slice(0, pageSize);
      const last = items.at(-1);
      return { items, nextCursor: rows.length > pageSize && last ? encodeCursor(last.id) : null };
    }

    for (const field of ['limit', 'cursor'] as const) {
      if (query[field] === undefined) continue;
      const detail =
        `${field} is for JSON pages; ` + 'a download holds every matching entry (narrow it with since and until)';
      throw new InvalidRequestError([{ in: 'query', pointer: `#/${field}`, detail }]);
    }
    const body =
      format === 'csv'
        ? await auditDownload(app.pg, filter, csvLine, csvRecord(CSV_COLUMNS))
        : await auditDownload(app.pg, filter, ndjsonLine);
    return reply
      .type(format === 'csv' ? 'text/csv; charset=utf-8; header=present' : 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="${filename(org, format)}"`)
      .header('cache-control', 'no-store')
      .send(body);
  };

  app.route({
    method: 'GET',
    url: '/api/v1/platform/audit',
    config: { permission: 'platform.admin' },
    preValidation: pointLargePagesToDownloads,
    schema: { tags: ['audit'], querystring: AuditQuery, response: auditResponses },
    handler: async (request, reply) => read(request, reply, request.query),
  });

  app.route({
    method: 'GET',
    url: '/api/v1/tenants/:org/audit',
    config: { permission: 'members.manage' },
    preValidation: pointLargePagesToDownloads,
    schema: {
      tags: ['audit'],
      description:
        "The tenant's rows: its members, its clusters (registration, deletion, agent tokens) and their flags.",
      params: OrgParams,
      querystring: AuditQuery,
      response: auditResponses,
    },
    handler: async (request, reply) => read(request, reply, request.query, request.params.org),
  });
};

export default auditLogRoutes;
