import { randomUUID } from 'node:crypto';
import type { SharedRedis } from '../redis/shared.js';

export interface HeldLock {
  release(): Promise<void>;
}

/** What holds the lock when it cannot be taken. */
export interface LockHolder {
  action: string;
  startedAt: string;
}

/**
 * One action at a time per game server, across replicas: a Redis key set only if absent, with
 * an expiry past the action's own timeout so a replica that dies mid-action frees it. Without
 * Redis (or while it fails) the lock is this replica's alone.
 */
export class ActionLocks {
  private readonly local = new Map<string, { token: string; holder: LockHolder; expires: number }>();

  constructor(private readonly redis: SharedRedis | undefined) {}

  async acquire(key: string, action: string, ttlMs: number): Promise<HeldLock | LockHolder> {
    const token = randomUUID();
    const holder: LockHolder = { action, startedAt: new Date().toISOString() };
    const value = JSON.stringify({ token, ...holder });
    if (this.redis?.client.status === 'ready') {
      try {
        const redis = this.redis.client;
        const redisKey = `${this.redis.keyPrefix}action:${key}`;
        const set = await redis.set(redisKey, value, 'PX', ttlMs, 'NX');
        if (set === 'OK') {
          return {
            release: async () => {
              // Only our own lock: one that expired and was taken since is someone else's.
              await redis
                .eval(
                  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0",
                  1,
                  redisKey,
                  value,
                )
                .catch(() => undefined);
            },
          };
        }
        const current = await redis.get(redisKey);
        return current ? holderOf(current, action) : { action: 'another action', startedAt: holder.startedAt };
      } catch {
        // Redis failed mid-way: fall through to this replica's lock rather than refuse every action.
      }
    }
    const now = Date.now();
    const held = this.local.get(key);
    if (held && held.expires > now) return held.holder;
    this.local.set(key, { token, holder, expires: now + ttlMs });
    return {
      release: async () => {
        if (this.local.get(key)?.token === token) this.local.delete(key);
      },
    };
  }
}

function holderOf(text: string, fallback: string): LockHolder {
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    return {
      action: typeof parsed.action === 'string' ? parsed.action : fallback,
      startedAt: typeof parsed.startedAt === 'string' ? parsed.startedAt : '',
    };
  } catch {
    return { action: fallback, startedAt: '' };
  }
}

export function isHeld(lock: HeldLock | LockHolder): lock is HeldLock {
  return 'release' in lock;
}
