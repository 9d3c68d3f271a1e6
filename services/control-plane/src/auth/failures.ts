import type { SharedRedis } from '../redis/shared.js';

/** One attempt taken from a client address's allowance before its credential is verified. */
export interface Reservation {
  /** Milliseconds until the address may try again (this attempt is refused), or 0. */
  readonly blockedFor: number;
  /** The credential was good: the attempt no longer counts against the address. */
  release(): void;
}

/**
 * Failed authentication attempts per client IP in a fixed window, shared through Redis when
 * there is one. Each attempt is reserved atomically before its credential is verified, so however
 * many arrive at once, no more than the limit are verified per window; a failed attempt keeps
 * its reservation, a good one gives it back.
 */
export interface FailureLimiter {
  reserve(ip: string): Promise<Reservation>;
}

/** Addresses remembered per replica before the table is dropped (a flood of spoofed sources). */
const MAX_ADDRESSES = 100_000;

const refused = (blockedFor: number): Reservation => ({ blockedFor, release: () => undefined });

interface Window {
  count: number;
  resetAt: number;
}

function localWindows(max: number, windowMs: number) {
  const windows = new Map<string, Window>();
  const current = (ip: string, now: number): Window => {
    let w = windows.get(ip);
    if (w === undefined || w.resetAt <= now) {
      if (windows.size >= MAX_ADDRESSES) windows.clear();
      w = { count: 0, resetAt: now + windowMs };
      windows.set(ip, w);
    }
    return w;
  };
  const take = (ip: string, w: Window) => {
    w.count++;
    return () => {
      if (w.count > 0) w.count--;
      if (w.count === 0 && windows.get(ip) === w) windows.delete(ip);
    };
  };
  return {
    reserve(ip: string): Reservation {
      const now = Date.now();
      const w = current(ip, now);
      if (w.count >= max) return refused(w.resetAt - now);
      return { blockedFor: 0, release: take(ip, w) };
    },
    /** Counts an attempt Redis allowed without checking it here, so a fallback starts from what this replica saw. */
    mirror(ip: string): () => void {
      return take(ip, current(ip, Date.now()));
    },
  };
}

/**
 * Check and count in one step, so parallel attempts cannot all pass the check before any is
 * counted: 0 when the attempt is taken, else the milliseconds the address must wait.
 */
const RESERVE = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then return ttl end
end
redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2], 'NX')
return 0`;

/** Gives an attempt back; never below zero, and never creating a key without an expiry. */
const RELEASE = `
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

/**
 * Counts in Redis, so every replica sees every attempt. While Redis cannot be used, the replica
 * counts on its own (a per-replica limit, not none) instead of failing or stalling the request:
 * an outage of the counters must not take sign-ins down. Attempts are always counted locally
 * too, so the fallback starts from what this replica has seen.
 */
function redisFailureLimiter(
  { client: redis, health, keyPrefix }: SharedRedis,
  max: number,
  windowMs: number,
): FailureLimiter {
  const key = (ip: string) => `${keyPrefix}authfail:${ip}`;
  const local = localWindows(max, windowMs);
  return {
    async reserve(ip) {
      if (!health.usable()) return local.reserve(ip);
      let wait: number;
      try {
        wait = Number(await redis.eval(RESERVE, 1, key(ip), max, windowMs));
      } catch (err) {
        health.failed(err as Error);
        return local.reserve(ip);
      }
      if (wait > 0) return refused(wait);
      const mirrored = local.mirror(ip);
      return {
        blockedFor: 0,
        release() {
          mirrored();
          // Not awaited: the caller is through; a release lost to an outage only over-counts.
          if (health.usable()) redis.eval(RELEASE, 1, key(ip)).catch((err: Error) => health.failed(err));
        },
      };
    },
  };
}

/** Failed sign-ins counted in Redis when there is one (see above), else by this replica alone. */
export function failureLimiter(redis: SharedRedis | undefined, max: number, windowMs: number): FailureLimiter {
  if (redis !== undefined) return redisFailureLimiter(redis, max, windowMs);
  const local = localWindows(max, windowMs);
  return { reserve: async (ip) => local.reserve(ip) };
}
