import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { IncomingMessage } from 'node:http';
import { routeOf } from '../table.js';
import { Namespace, Name } from '../params.js';
import { BadRequest, Conflict, NotFound } from '../../errors.js';
import { containerOf, stateOf } from '../../gameservers/model.js';
import { EVENT_STREAM, LogFraming, PLAIN_TEXT, prefersEventStream } from '../../logs/format.js';

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
          'Keep the stream open and send new lines as they are written, until the game server is deleted or the client goes.',
      }),
    ),
  },
  { additionalProperties: false },
);

const LOG_RESPONSE = {
  description:
    "The game server container's log. A follow ends when the game server is deleted, its container's log ends, or the control plane shuts down.",
  content: {
    'text/plain': { schema: Type.String({ description: 'The log as the container wrote it (the default).' }) },
    [EVENT_STREAM]: {
      schema: Type.String({
        description:
          'When Accept prefers it: one `data: <line>` event a line, then `event: end` whose data says why the stream ended (`end of log`, `game server deleted`, `container log ended`, `log stream cut`, `control plane shutting down`).',
      }),
    },
  },
};

const NO_LOG_RESPONSE = {
  description:
    'the game server has no pod (not created yet, or gone: Agones does not replace it), or its container cannot give its log yet',
  content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
};

/** `GET /api/v1/gameservers/{namespace}/{name}/logs`: the game server container's log, read or followed. */
const logRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { gameServers } = app.agones;
  const { logs } = app.kube;
  /** Open streams, ended when the control plane shuts down so that closing does not wait on them. */
  const open = new Set<(reason: string) => void>();
  app.addHook('preClose', async () => {
    for (const end of [...open]) end('control plane shutting down');
  });

  app.route({
    ...routeOf('getLogs'),
    schema: {
      tags: ['gameservers'],
      params: Type.Object({ namespace: Namespace, name: Name }),
      querystring: LogQuery,
      response: { 200: LOG_RESPONSE, 409: NO_LOG_RESPONSE },
    },
    handler: async (request, reply) => {
      const { namespace, name } = request.params;
      const { tailLines, sinceSeconds, follow = false } = request.query;
      gameServers.requireReady();
      const gs = gameServers.get(namespace, name);
      if (gs === undefined) throw new NotFound(`game server ${namespace}/${name} not found`);
      const uid = gs.metadata?.uid;

      let source: IncomingMessage;
      try {
        // The pod has the game server's name (Agones).
        source = await logs.stream(
          { namespace, pod: name, container: containerOf(gs) },
          { follow, tailLines, sinceSeconds },
        );
      } catch (err) {
        const now = gameServers.get(namespace, name);
        if (err instanceof NotFound) {
          if (now === undefined) throw new NotFound(`game server ${namespace}/${name} not found`);
          throw new Conflict(`game server ${namespace}/${name} has no pod (it is ${stateOf(now)}), so no log to read`);
        }
        // Kubernetes' 400 on valid parameters: the container cannot give its log yet (waiting to start).
        if (err instanceof BadRequest)
          throw new Conflict(`the log of game server ${namespace}/${name} cannot be read now: ${err.message}`);
        throw err;
      }

      const events = prefersEventStream(request.headers.accept);
      const type = events ? EVENT_STREAM : PLAIN_TEXT;
      // HEAD learns what GET would answer; Fastify would drain a stream into nothing, a follow for ever.
      if (request.method === 'HEAD') {
        source.destroy();
        return reply.type(type).send();
      }
      const framing = new LogFraming(events);
      const deleted = (): boolean => {
        const now = gameServers.get(namespace, name);
        return now === undefined || now.metadata?.uid !== uid || now.metadata?.deletionTimestamp !== undefined;
      };
      let ended = false;
      const end = (reason: string): void => {
        if (ended) return;
        ended = true;
        request.auditOutcome = reason;
        source.unpipe(framing);
        source.destroy();
        framing.finish(reason);
      };
      const unsubscribe = gameServers.onChange((change, object) => {
        if (change === 'delete' && object.metadata?.uid === uid) end('game server deleted');
      });
      open.add(end);
      // Backpressure: the Kubernetes stream is read only as fast as the client takes the framed bytes.
      source.pipe(framing, { end: false });
      source.on('error', () => undefined);
      source.once('end', () => end(!follow ? 'end of log' : deleted() ? 'game server deleted' : 'container log ended'));
      source.once('close', () => {
        if (ended || source.readableEnded) return;
        // Plain text has no way to say so but an unfinished body; events say it in the last one.
        if (framing.events) {
          end('log stream cut');
        } else {
          ended = true;
          request.auditOutcome = 'log stream cut';
          framing.destroy(new Error(`the log stream of game server ${namespace}/${name} from Kubernetes was cut`));
        }
      });
      // Ended, or the client went (Fastify destroys the stream it was sending): no stream outlives it.
      framing.once('close', () => {
        ended = true;
        unsubscribe();
        open.delete(end);
        source.destroy();
      });
      // Sent at once, not with the first line, so a client following a quiet server knows it is connected.
      reply.raw.once('pipe', () => reply.raw.flushHeaders());
      return (
        reply
          .type(type)
          .header('cache-control', 'no-store')
          // A proxy that buffers answers (nginx, so most ingresses) would hold a follow's lines back.
          .header('x-accel-buffering', 'no')
          // The stream of the text the response schema documents (the reply is typed for the text).
          .send(framing as unknown as string)
      );
    },
  });
};

export default logRoutes;
