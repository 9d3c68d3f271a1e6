import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { RUNNING_STATES, isRunning } from '../contract.js';
import { routeOf } from '../rbac/table.js';
import { BadRequest, Conflict, NotFound } from '../errors.js';
import { stateOf } from '../gameservers/model.js';
import { TerminalHub } from './hub.js';
import { TERMINAL_LIMITS } from './protocol.js';
import type { TerminalTarget } from './tickets.js';
import { Name, Namespace } from '../http/params.js';

const GameServerParams = Type.Object({ namespace: Namespace, name: Name });

const TerminalQuery = Type.Object({
  ticket: Type.Optional(
    Type.String({
      maxLength: 100,
      description: 'A ticket from POST .../console/tickets, for clients that cannot send credential headers.',
    }),
  ),
});

const Ticket = Type.Object(
  {
    ticket: Type.String({ description: 'Pass as `?ticket=` when opening the console; valid once.' }),
    expiresAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

/**
 * The console of a game server, its terminal: a WebSocket attached to its container (after the
 * same authentication, audit and role check as every request), and the tickets with which
 * browsers open one. The protocol is in src/terminal/protocol.ts and the README.
 */
const terminalRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const hub = new TerminalHub({
    gameServers: app.agones.gameServers,
    apikeys: app.apikeys,
    exec: app.kube.exec,
    limits: TERMINAL_LIMITS,
    log: app.log,
    onSessionEnded: (listener) => app.panelSessions.onEnded(listener),
  });
  app.addHook('onClose', async () => hub.stop());

  /** Refuses a console on a game server that does not exist (404) or whose process does not run (409). */
  const checkRunning = ({ namespace, name }: TerminalTarget): void => {
    app.agones.gameServers.requireReady();
    const gs = app.agones.gameServers.get(namespace, name);
    if (gs === undefined) throw new NotFound(`game server ${namespace}/${name} not found`);
    const state = stateOf(gs);
    if (!isRunning(state))
      throw new Conflict(
        `the console needs a running game server (${RUNNING_STATES.join(', ')}); ${namespace}/${name} is ${state}`,
      );
  };

  const openConsole = routeOf('openConsole', [409]);
  app.route({
    ...openConsole,
    // Browsers cannot set headers on a WebSocket: a ticket from the route below stands in for them.
    config: { ...openConsole.config, tickets: true },
    // Left out of /openapi.json, which cannot describe a WebSocket; the README documents it.
    schema: { hide: true, params: GameServerParams, querystring: TerminalQuery },
    preHandler: async (request) => checkRunning(request.params),
    // A refused upgrade's socket left HTTP behind: nothing else will close it when authentication
    // or the rate limit refused it (their hooks run before @fastify/websocket's, which would).
    onResponse: async (request) => {
      if (request.raw.headers.upgrade !== undefined) request.raw.socket.destroy();
    },
    handler: async () => {
      throw new BadRequest('the console is a WebSocket: connect with Upgrade: websocket (see the README)');
    },
    wsHandler: (socket, request) => {
      app.auditUpgraded(request);
      hub.open(socket, {
        target: request.params,
        principal: request.principal!,
        audit: {
          input: (command) => app.auditEvent(request, { action: 'console.input', command }),
          close: (summary) => app.auditEvent(request, { action: 'console.close', ...summary }),
        },
      });
    },
  });

  app.route({
    ...routeOf('createConsoleTicket', [409]),
    schema: {
      summary: "A single-use ticket to open the game server's console without credential headers (browsers)",
      params: GameServerParams,
      response: { 201: Ticket },
    },
    handler: async (request, reply) => {
      checkRunning(request.params);
      const issued = await app.terminalTickets.issue(request.principal!, request.params);
      // A credential: never kept by a cache.
      reply.code(201).header('cache-control', 'no-store');
      return issued;
    },
  });
};

export default terminalRoutes;
