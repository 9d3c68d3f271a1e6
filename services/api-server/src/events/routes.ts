import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../auth/actor.js';
import { problem, unavailableResponse } from '../schemas.js';
import type { EventsConfig } from '../config/events.js';
import { EventFeed } from './feed.js';
import { readIdentity } from './identity.js';
import { LAST_EVENT_ID_RULE, resumeAfter } from './last-event-id.js';
import { EventsHeaders, EventsQuery, MeResponse } from './schemas.js';

export interface EventRoutesOptions extends EventsConfig {
  platformId: string;
}

const STREAM_DESCRIPTION =
  'Server-Sent Events: `flag`, `member`, `cluster` and `agent` events, each `id: <outbox id>`, `event: <name>`, ' +
  '`data: <json>`, filtered to what the caller may see; `event: reload` when events were missed, ' +
  '`event: close` before the server ends the stream, comment lines as heartbeats. ' +
  `\`Last-Event-ID\` (or \`lastEventId\`) ${LAST_EVENT_ID_RULE}. ` +
  "See the API server's README for payloads and rules.";

const routes: FastifyPluginAsyncTypebox<EventRoutesOptions> = async (app, opts) => {
  const { platformId } = opts;
  const tags = ['events'];
  const feed = new EventFeed({ ...opts, db: app.pg, bus: app.events, log: app.log });
  // Open streams would keep app.close() waiting for ever.
  app.addHook('preClose', () => feed.close());

  app.route({
    method: 'GET',
    url: '/api/v1/me',
    schema: {
      tags,
      summary: 'Who the caller is: its subject, whether it is a platform admin, its tenants and roles',
      response: {
        200: MeResponse,
        401: problem('no bearer token, or one that is not valid (see `WWW-Authenticate`)'),
        503: unavailableResponse,
      },
    },
    handler: async (request) => {
      const identity = await readIdentity(app.pg, actorOf(request), platformId);
      const tenants = [...identity.tenants]
        .map(([org, role]) => ({ org, role }))
        .sort((a, b) => (a.org < b.org ? -1 : a.org > b.org ? 1 : 0));
      return { subject: identity.subject, platformAdmin: identity.platformAdmin, tenants };
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/events',
    schema: {
      tags,
      summary: 'Live changes the caller may see (Server-Sent Events), resumable with Last-Event-ID',
      description: STREAM_DESCRIPTION,
      headers: EventsHeaders,
      querystring: EventsQuery,
      response: {
        200: { description: STREAM_DESCRIPTION, content: { 'text/event-stream': { schema: Type.String() } } },
        400: problem('`Last-Event-ID` or `lastEventId` is not an event id'),
        401: problem('no bearer token, or one that is not valid (see `WWW-Authenticate`)'),
        503: unavailableResponse,
      },
    },
    handler: async (request, reply) => {
      const afterId = resumeAfter(request.headers['last-event-id'], request.query.lastEventId);
      const stream = await feed.open(actorOf(request), afterId, request.consoleSessionHash ?? undefined);
      const exp = request.verifiedToken?.claims.exp;
      reply.hijack();
      await stream.start(reply.raw, {
        expiresAtMs: typeof exp === 'number' ? exp * 1000 : undefined,
        headers: { 'x-request-id': request.id },
      });
    },
  });
};

export default routes;
