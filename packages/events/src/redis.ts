import { Redis } from 'ioredis';
import { countConstruction } from './bus.js';
import type { EventBus, EventHandlers } from './bus.js';
export interface RedisBusOptions {
  url: string;
  /** Prefix for channel names, so tests and tenants of one Redis never cross. */
  prefix?: string;
  /** Redis CLIENT SETNAME base; connections are named `<name>:sub` and `<name>:pub`. */
  connectionName?: string;
  onError?: (err: Error) => void;
}

/**
 * Redis pub/sub transport. The subscriber reconnects by itself (ioredis) and every reconnect
 * after the first connection is reported as `resync`, because messages sent meanwhile are lost.
 * The publisher does not queue while disconnected: a publish then fails, so the outbox relay
 * leaves the event undelivered and tries again.
 */
export class RedisEventBus implements EventBus {
  private readonly prefix: string;
  private readonly sub: Redis;
  private pub: Redis | undefined;
  /** Handlers by channel; a channel is subscribed with its first handler (ioredis resubscribes after a reconnect). */
  private readonly handlers = new Map<string, Set<EventHandlers>>();

  constructor(private readonly options: RedisBusOptions) {
    countConstruction();
    this.prefix = options.prefix ?? '';
    this.sub = new Redis(options.url, {
      maxRetriesPerRequest: null,
      retryStrategy: (times) => Math.min(50 * 2 ** times, 2000),
      ...(options.connectionName ? { connectionName: `${options.connectionName}:sub` } : {}),
    });
    this.sub.on('error', (err: Error) => options.onError?.(err));
    // Events published while this subscriber was not listening are lost to it: on every
    // (re)connection, caches are dropped. That includes the first one, since a process may have
    // started and cached values before Redis could be reached.
    this.sub.on('ready', () => {
      for (const set of this.handlers.values()) for (const h of set) h.resync?.();
    });
    this.sub.on('message', (channel: string, message: string) => {
      const set = this.handlers.get(channel);
      if (!set) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(message);
      } catch {
        return;
      }
      for (const h of set) h.event(parsed);
    });
  }

  /** The Redis channel of an event type. */
  channel(type: string): string {
    return `${this.prefix}${type}`;
  }

  /** Resolves once the subscription is active (useful before the first write in tests). */
  async ready(): Promise<void> {
    if (this.sub.status !== 'ready') await new Promise<void>((resolve) => this.sub.once('ready', () => resolve()));
    // A SUBSCRIBE issued before `ready` completes with the connection; this round trip orders after it.
    await this.sub.ping().catch(() => {});
  }

  async publish(type: string, payload: object): Promise<void> {
    this.pub ??= (() => {
      const pub = new Redis(this.options.url, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        commandTimeout: 2000,
        ...(this.options.connectionName ? { connectionName: `${this.options.connectionName}:pub` } : {}),
      });
      pub.on('error', (err: Error) => this.options.onError?.(err));
      return pub;
    })();
    const pub = this.pub;
    if (pub.status !== 'ready')
      await new Promise<void>((resolve, reject) => {
        const ready = (): void => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          pub.off('ready', ready);
          reject(new Error('redis publisher not connected'));
        }, 2000);
        pub.once('ready', ready);
      });
    await this.pub.publish(this.channel(type), JSON.stringify(payload));
  }

  subscribe(type: string, handlers: EventHandlers): () => void {
    const channel = this.channel(type);
    let set = this.handlers.get(channel);
    if (!set) {
      this.handlers.set(channel, (set = new Set()));
      this.sub.subscribe(channel).catch((err: Error) => this.options.onError?.(err));
    }
    set.add(handlers);
    return () => set.delete(handlers);
  }

  async close(): Promise<void> {
    this.handlers.clear();
    this.sub.disconnect();
    this.pub?.disconnect();
  }
}
