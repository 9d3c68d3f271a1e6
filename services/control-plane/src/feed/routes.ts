import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { routeOf } from '../rbac/table.js';
import { setAudit } from '../audit-target.js';
import { GameServerFeed } from './hub.js';
import { GameServerListing } from '../gameservers/listing.js';
import { EVENT_STREAM } from '../logs/format.js';

const FEED_RESPONSE = {
  description:
    'Server-Sent Events, open until the client goes or the server ends the feed. ' +
    'First `event: snapshot`, `data: {"items": [GameServer...]}` ' +
    '(as `GET /api/v1/gameservers` lists them, only namespaces the caller may list); ' +
    'then `event: change`, `data: {"type": "added" | "modified" | "deleted", "item": GameServer}` ' +
    'for each change, within a second; a `: keep-alive` comment every 15 s; ' +
    'and `event: close`, `data: {"reason": "..."}` before the server ends it ' +
    '(the control plane shutting down, the API key revoked or expired, the credential expired, ' +
    'the panel session ended, or a client too far behind). A reconnect starts with a new snapshot.',
  content: { [EVENT_STREAM]: { schema: Type.String({ description: 'The event stream.' }) } },
};

/** `GET /api/v1/events/gameservers`: the game-server list, live (the panel's list is built on it). */
const feedRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { gameServers } = app.agones;
  const feed = new GameServerFeed({
    gameServers,
    listing: new GameServerListing(gameServers),
    apikeys: app.apikeys,
    onSessionEnded: (listener) => app.panelSessions.onEnded((hash) => listener(hash)),
  });
  // Open feeds end, saying so, when the control plane shuts down, so that closing does not wait on them.
  app.addHook('preClose', async () => feed.stop());

  app.route({
    ...routeOf('watchGameServers'),
    schema: { tags: ['gameservers'], response: { 200: FEED_RESPONSE } },
    handler: async (request, reply) => {
      reply.type(EVENT_STREAM).header('cache-control', 'no-store').header('x-accel-buffering', 'no');
      // HEAD learns what GET would answer; Fastify would drain a feed into nothing for ever.
      if (request.method === 'HEAD') {
        gameServers.requireReady();
        return reply.send('');
      }
      // The audit line is written as the response closes, before a stream the client left hears of it:
      // unless the feed ends for another reason first, the client went.
      setAudit(request, { outcome: 'client went' });
      const stream = feed.open({
        principal: request.principal!,
        visible: request.visibleNamespaces ?? 'all',
        queuedInResponse: () => reply.raw.writableLength,
        onEnd: (reason) => setAudit(request, { outcome: reason }),
      });
      // The stream of the text the response schema documents (the reply is typed for the text).
      return reply.send(stream as unknown as string);
    },
  });
};

export default feedRoutes;
