import fp from 'fastify-plugin';
import type { Principal } from '../auth/principal.js';
import { TicketStore } from '../terminal/tickets.js';
import type { TerminalTarget, IssuedTicket } from '../terminal/tickets.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route takes a console ticket (`?ticket=` on a GET of a game server's path) when no
     * credential header is present: browsers cannot set headers on a WebSocket.
     */
    tickets?: boolean;
  }
  interface FastifyInstance {
    /** Single-use console tickets: issued to a signed-in caller, redeemed by authentication. */
    terminalTickets: TerminalTickets;
  }
}

export interface TerminalTickets {
  /** A ticket for `principal` to open the console of `target` once, within CONSOLE_TICKET_TTL. */
  issue(principal: Principal, target: TerminalTarget): Promise<IssuedTicket>;
  /**
   * The principal `ticket` was issued to, consumed, if it is current, unused and for `target`,
   * and the credential it was asked with still authenticates; else undefined.
   */
  redeem(ticket: string, target: TerminalTarget): Promise<Principal | undefined>;
}

export interface TicketsPluginOptions {
  /** CONSOLE_TICKET_TTL, in milliseconds. */
  ttlMs: number;
}

/** Decorates `app.terminalTickets`; authentication depends on it to redeem the tickets of the routes that take them. */
export default fp<TicketsPluginOptions>(
  async (app, opts) => {
    if (!Number.isInteger(opts.ttlMs) || opts.ttlMs <= 0)
      throw new Error(`the console ticket lifetime must be a positive number of milliseconds; got ${opts.ttlMs}`);
    // In Redis, when there is one, so that any replica redeems them; else in this replica's memory.
    const store = new TicketStore(app.redis, opts.ttlMs);
    app.decorate('terminalTickets', {
      issue: (principal, target) => store.issue(principal, target),
      async redeem(ticket, target) {
        const grant = await store.redeem(ticket, target);
        const apiKey = grant?.principal.apiKey;
        // A ticket is worth what the credential it was asked with is worth now.
        if (apiKey !== undefined && app.apikeys.byHash(apiKey.sha256) === undefined) return undefined;
        // Asked for from a panel session: worth nothing once it ended (signed out on any replica).
        const session = grant?.principal.sessionHash;
        if (session !== undefined && app.hasDecorator('panelSessions') && !(await app.panelSessions.alive(session)))
          return undefined;
        return grant?.principal;
      },
    } satisfies TerminalTickets);
    app.addHook('onClose', async () => store.clear());
  },
  { name: 'tickets', dependencies: ['redis', 'apikeys'] },
);
