import type { Redis } from 'ioredis';

/** Failed authentication attempts per client IP in a fixed window, shared through Redis when there is one. */
export interface FailureLimiter {
  /** Milliseconds until the IP may try again, or 0. */
  blockedFor(ip: string): Promise<number>;
  fail(ip: string): Promise<void>;
}

export function localFailureLimiter(max: number, windowMs: number): FailureLimiter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  return {
    async blockedFor(ip) {
      const w = windows.get(ip);
      const now = Date.now();
      if (!w || w.resetAt <= now) return 0;
      return w.count >= max ? w.resetAt - now : 0;
    },
    async fail(ip) {
      const now = Date.now();
      const w = windows.get(ip);
      if (!w || w.resetAt <= now) {
        if (windows.size > 100_000) windows.clear();
        windows.set(ip, { count: 1, resetAt: now + windowMs });
      } else w.count++;
    },
  };
}

/** Whether Redis may be asked now: connected, and no command has failed or stalled lately. */
export interface RedisHealth {
  usable(): boolean;
  /** A command failed or timed out: use the fallbacks for a while before trying Redis again. */
  failed(err: Error): void;
}

/** A circuit breaker over one client: after a failure, Redis is left alone for `pauseMs`. */
export function redisHealth(redis: Redis, pauseMs = 5000, onOutage: (err: Error) => void = () => undefined): RedisHealth {
  let pausedUntil = 0;
  return {
    usable: () => redis.status === 'ready' && Date.now() >= pausedUntil,
    failed(err) {
      if (Date.now() >= pausedUntil) onOutage(err);
      pausedUntil = Date.now() + pauseMs;
    },
  };
}

/**
 * Counts in Redis, so every replica sees every failure. While Redis cannot be used, the replica
 * counts on its own (a per-replica limit, not none) instead of failing or stalling the request:
 * an outage of the counters must not take sign-ins down. Failures are always counted locally
 * too, so the fallback starts from what this replica has seen.
 */
export function redisFailureLimiter(redis: Redis, health: RedisHealth, prefix: string, max: number, windowMs: number): FailureLimiter {
  const key = (ip: string) => `${prefix}authfail:${ip}`;
  const local = localFailureLimiter(max, windowMs);
  return {
    async blockedFor(ip) {
      if (!health.usable()) return local.blockedFor(ip);
      try {
        const [count, ttl] = await Promise.all([redis.get(key(ip)), redis.pttl(key(ip))]);
        return Number(count ?? 0) >= max && ttl > 0 ? ttl : 0;
      } catch (err) {
        health.failed(err as Error);
        return local.blockedFor(ip);
      }
    },
    async fail(ip) {
      await local.fail(ip);
      if (!health.usable()) return;
      try {
        await redis.multi().incr(key(ip)).pexpire(key(ip), windowMs, 'NX').exec();
      } catch (err) {
        health.failed(err as Error);
      }
    },
  };
}
