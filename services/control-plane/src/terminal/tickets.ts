import { createHash, randomBytes } from 'node:crypto';
import type { SharedRedis } from '../redis/shared.js';
import type { Principal } from '../auth/principal.js';
import { ServiceUnavailable, withRetryAfter } from '../errors.js';

/** The game server a ticket opens the console of. */
export interface TerminalTarget {
  namespace: string;
  name: string;
}

/** What a ticket stands for: who asked for it, for which console, until when. */
export interface TicketGrant extends TerminalTarget {
  principal: Principal;
  expiresAt: number;
}

export interface IssuedTicket {
  ticket: string;
  expiresAt: string;
}

/** 32 random bytes, base64url: what `issue` hands out, and all `redeem` looks up. */
const TICKET_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/** Tickets are stored under their hash: whoever reads the store cannot use them. */
const hashOf = (ticket: string): string => createHash('sha256').update(ticket).digest('hex');

const redisKey = (redis: SharedRedis, hash: string): string => `${redis.keyPrefix}console-ticket:${hash}`;

function parseGrant(text: string): TicketGrant | undefined {
  try {
    const grant = JSON.parse(text) as TicketGrant;
    const valid =
      typeof grant.namespace === 'string' &&
      typeof grant.name === 'string' &&
      typeof grant.expiresAt === 'number' &&
      typeof grant.principal?.userId === 'string';
    return valid ? grant : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Console tickets: single-use credentials for one user and one game server, living `ttlMs`,
 * for browsers, which cannot set headers on a WebSocket. In Redis when it is configured (a
 * ticket issued by one replica is redeemed by any, and GETDEL makes the first use the only
 * one), else in this replica's memory; a replica that cannot reach Redis issues into its
 * memory, and redeems from both.
 */
export class TicketStore {
  private readonly local = new Map<string, { grant: TicketGrant; timer: NodeJS.Timeout }>();

  constructor(
    private readonly redis: SharedRedis | undefined,
    readonly ttlMs: number,
  ) {}

  async issue(principal: Principal, target: TerminalTarget): Promise<IssuedTicket> {
    const ticket = randomBytes(32).toString('base64url');
    const grant: TicketGrant = {
      principal,
      namespace: target.namespace,
      name: target.name,
      expiresAt: Date.now() + this.ttlMs,
    };
    const key = hashOf(ticket);
    let stored = false;
    if (this.redis?.client.status === 'ready') {
      try {
        await this.redis.client.set(redisKey(this.redis, key), JSON.stringify(grant), 'PX', this.ttlMs);
        stored = true;
      } catch {
        // Redis failed: this replica keeps the ticket; only it will accept it.
      }
    }
    if (!stored) {
      const timer = setTimeout(() => this.local.delete(key), this.ttlMs);
      timer.unref();
      this.local.set(key, { grant, timer });
    }
    return { ticket, expiresAt: new Date(grant.expiresAt).toISOString() };
  }

  /**
   * The grant of `ticket`, consumed, if it is current and for `target`; undefined otherwise. A
   * ticket presented for another game server is consumed too: it was shown where it should not be.
   */
  async redeem(ticket: string, target: TerminalTarget): Promise<TicketGrant | undefined> {
    if (!TICKET_FORMAT.test(ticket)) return undefined;
    const key = hashOf(ticket);
    let grant: TicketGrant | undefined;
    const held = this.local.get(key);
    if (held !== undefined) {
      clearTimeout(held.timer);
      this.local.delete(key);
      grant = held.grant;
    } else if (this.redis?.client.status === 'ready') {
      let text: string | null;
      try {
        text = await this.redis.client.getdel(redisKey(this.redis, key));
      } catch {
        throw withRetryAfter(
          new ServiceUnavailable('console tickets cannot be checked right now (Redis is not answering); try again'),
          1,
        );
      }
      grant = text === null ? undefined : parseGrant(text);
    }
    if (grant === undefined || grant.expiresAt <= Date.now()) return undefined;
    if (grant.namespace !== target.namespace || grant.name !== target.name) return undefined;
    return grant;
  }

  /** Forgets the tickets held in memory (the app is closing). */
  clear(): void {
    for (const { timer } of this.local.values()) clearTimeout(timer);
    this.local.clear();
  }
}
