import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { routeOf } from '../rbac/table.js';
import { Namespace, Name } from '../http/params.js';
import { setAudit } from '../audit-target.js';
import { EVENT_STREAM, PLAIN_TEXT, prefersEventStream } from './format.js';
import { GameServerLogs } from './service.js';

/** Longest `sinceSeconds`: 30 days, beyond what any node keeps of a container's log. */
export const MAX_SINCE_SECONDS = 30 * 24 * 3600;
export const MAX_TAIL_LINES = 100_000;

const LogQuery = Type.Object(
  {
    tailLines: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_TAIL_LINES, description: 'Only the last this many lines.' }),
    ),
    sinceSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_SINCE_SECONDS,
        description: 'Only the lines of the last this many seconds (at most 30 days).',
      }),
    ),
    follow: Type.Optional(
      Type.Boolean({
        description:
          'Keep the stream open and send new lines as they are written, ' +
          'until the game server is deleted or the client goes.',
      }),
    ),
  },
  { additionalProperties: false },
);

const LOG_RESPONSE = {
  description:
    "The game server container's log. " +
    "A follow ends when the game server is deleted, its container's log ends, or the control plane shuts down.",
  content: {
    'text/plain': { schema: Type.String({ description: 'The log as the container wrote it (the default).' }) },
    [EVENT_STREAM]: {
      schema: Type.String({
        description:
          'When Accept prefers it: one `data: <line>` event a line, ' +
          'then `event: end` whose data says why the stream ended (`end of log`, `game server deleted`, ' +
          '`container log ended`, `log stream cut`, `control plane shutting down`).',
      }),
    },
  },
};

const NO_LOG_RESPONSE = {
  description:
    'the game server has no pod (not created yet, or gone: Agones does not replace it), ' +
    'or its container cannot give its log yet',
  content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
};

/** `GET /api/v1/gameservers/{namespace}/{name}/logs`: the game server container's log, read or followed. */
const logRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const logs = new GameServerLogs(app.agones.gameServers, app.kube.logs);
  // Open streams end when the control plane shuts down, so that closing does not wait on them.
  app.addHook('preClose', async () => logs.endAll());

  app.route({
    ...routeOf('getLogs'),
    schema: {
      tags: ['gameservers'],
      params: Type.Object({ namespace: Namespace, name: Name }),
      querystring: LogQuery,
      response: { 200: LOG_RESPONSE, 409: NO_LOG_RESPONSE },
    },
    handler: async (request, reply) => {
      const log = await logs.read(request.params, { ...request.query, follow: request.query.follow ?? false });
      const events = prefersEventStream(request.headers.accept);
      reply.type(events ? EVENT_STREAM : PLAIN_TEXT);
      // HEAD learns what GET would answer; Fastify would drain a stream into nothing, a follow for ever.
      if (request.method === 'HEAD') {
        log.source.destroy();
        return reply.send();
      }
      // The follow is not told when the client goes first: unless it ends for another reason, the client went.
      setAudit(request, { outcome: 'client went' });
      const { body } = logs.follow(log, { events, onEnd: (outcome) => setAudit(request, { outcome }) });
      // Sent at once, not with the first line, so a client following a quiet server knows it is connected.
      reply.raw.once('pipe', () => reply.raw.flushHeaders());
      // No cache keeps it; a proxy that buffers answers (nginx, so most ingresses) would hold a follow's lines back.
      reply.header('cache-control', 'no-store').header('x-accel-buffering', 'no');
      // The stream of the text the response schema documents (the reply is typed for the text).
      return reply.send(body as unknown as string);
    },
  });
};

export default logRoutes;
