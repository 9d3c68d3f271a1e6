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

/**
 * Counts in Redis, so every replica sees every failure. While Redis cannot be reached, the
 * replica counts on its own (a per-replica limit, not none) instead of failing the request:
 * an outage of the counters must not take sign-ins down. Failures are always counted locally
 * too, so the fallback starts from what this replica has seen.
 */
export function redisFailureLimiter(redis: Redis, prefix: string, max: number, windowMs: number, onOutage: (err: Error) => void = () => undefined): FailureLimiter {
  const key = (ip: string) => `${prefix}authfail:${ip}`;
  const local = localFailureLimiter(max, windowMs);
  // ioredis queues nothing while disconnected (enableOfflineQueue: false), so a command fails at
  // once then; checking the status first also skips the attempt.
  const usable = () => redis.status === 'ready';
  return {
    async blockedFor(ip) {
      if (!usable()) return local.blockedFor(ip);
      try {
        const [count, ttl] = await Promise.all([redis.get(key(ip)), redis.pttl(key(ip))]);
        return Number(count ?? 0) >= max && ttl > 0 ? ttl : 0;
      } catch (err) {
        onOutage(err as Error);
        return local.blockedFor(ip);
      }
    },
    async fail(ip) {
      await local.fail(ip);
      if (!usable()) return;
      try {
        await redis.multi().incr(key(ip)).pexpire(key(ip), windowMs, 'NX').exec();
      } catch (err) {
        onOutage(err as Error);
      }
    },
  };
}
