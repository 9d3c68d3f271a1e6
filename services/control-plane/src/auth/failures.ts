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

export function redisFailureLimiter(redis: Redis, prefix: string, max: number, windowMs: number): FailureLimiter {
  const key = (ip: string) => `${prefix}authfail:${ip}`;
  return {
    async blockedFor(ip) {
      const [count, ttl] = await Promise.all([redis.get(key(ip)), redis.pttl(key(ip))]);
      return Number(count ?? 0) >= max && ttl > 0 ? ttl : 0;
    },
    async fail(ip) {
      await redis.multi().incr(key(ip)).pexpire(key(ip), windowMs, 'NX').exec();
    },
  };
}
