import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';

/** What a committed flag write announces (the outbox payload plus its event id). */
export interface FlagEvent {
  /** Outbox event id; absent for in-process notifications that bypass the outbox. */
  id?: string;
  flag: string;
  actor: string;
  scope: { type: 'platform'; platformId?: string } | { type: 'cluster'; org: string; clusterId: string };
  value: boolean | null;
}

export interface FlagEventBus {
  /** Resolves once the event is handed to the transport; rejects if it could not be. */
  publish(event: FlagEvent): Promise<void>;
  /** `resync` is called when events may have been missed (a reconnect). Returns unsubscribe. */
  subscribe(handlers: { event(event: FlagEvent): void; resync?(): void }): () => void;
  close(): Promise<void>;
}

export const FLAG_EVENTS_CHANNEL = 'featureflags.updated';

export function isFlagEvent(value: unknown): value is FlagEvent {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  const scope = v.scope as Record<string, unknown> | undefined;
  return (
    typeof v.flag === 'string' &&
    typeof scope === 'object' &&
    scope !== null &&
    (scope.type === 'platform' || (scope.type === 'cluster' && typeof scope.clusterId === 'string'))
  );
}

/** Invalidation inside one process: used when no Redis is configured. */
export class LocalFlagEventBus implements FlagEventBus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(event: FlagEvent): Promise<void> {
    this.emitter.emit('event', event);
  }

  subscribe(handlers: { event(event: FlagEvent): void; resync?(): void }): () => void {
    const listener = (event: FlagEvent) => handlers.event(event);
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

let processBus: LocalFlagEventBus | undefined;
/** The one in-process bus shared by every writer and client of this process. */
export function processLocalBus(): LocalFlagEventBus {
  processBus ??= new LocalFlagEventBus();
  return processBus;
}

export interface RedisBusOptions {
  url: string;
  /** Prefix for the channel name, so tests and tenants of one Redis never cross. */
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
export class RedisFlagEventBus implements FlagEventBus {
  readonly channel: string;
  private readonly sub: Redis;
  private pub: Redis | undefined;
  private readonly handlers = new Set<{ event(event: FlagEvent): void; resync?(): void }>();

  constructor(private readonly options: RedisBusOptions) {
    this.channel = `${options.prefix ?? ''}${FLAG_EVENTS_CHANNEL}`;
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
      for (const h of this.handlers) h.resync?.();
    });
    this.sub.on('message', (_channel: string, message: string) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(message);
      } catch {
        return;
      }
      if (!isFlagEvent(parsed)) return;
      for (const h of this.handlers) h.event(parsed);
    });
    this.sub.subscribe(this.channel).catch((err: Error) => options.onError?.(err));
  }

  /** Resolves once the subscription is active (useful before the first write in tests). */
  async ready(): Promise<void> {
    if (this.sub.status !== 'ready') await new Promise<void>((resolve) => this.sub.once('ready', () => resolve()));
    // A SUBSCRIBE issued before `ready` completes with the connection; this round trip orders after it.
    await this.sub.ping().catch(() => {});
  }

  async publish(event: FlagEvent): Promise<void> {
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
    if (pub.status !== 'ready') await new Promise<void>((resolve, reject) => {
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
    await this.pub.publish(this.channel, JSON.stringify(event));
  }

  subscribe(handlers: { event(event: FlagEvent): void; resync?(): void }): () => void {
    this.handlers.add(handlers);
    return () => this.handlers.delete(handlers);
  }

  async close(): Promise<void> {
    this.handlers.clear();
    this.sub.disconnect();
    this.pub?.disconnect();
  }
}
