import { EventEmitter } from 'node:events';
import { countConstruction } from './bus.js';
import type { EventBus, EventHandlers } from './bus.js';

const newChannel = (): EventEmitter => new EventEmitter().setMaxListeners(0);

/**
 * Events inside one process, on an in-memory channel: used when no Redis is configured. Two
 * buses on the same channel hear each other; `close` ends only this bus's subscriptions.
 */
export class LocalEventBus implements EventBus {
  private readonly subscriptions = new Set<() => void>();

  /** `channel`: shared with other buses of the process (`processLocalBus`); a private one by default. */
  constructor(private readonly channel: EventEmitter = newChannel()) {
    countConstruction();
  }

  async publish(type: string, payload: object): Promise<void> {
    this.channel.emit(type, payload);
  }

  subscribe(type: string, handlers: EventHandlers): () => void {
    const listener = (payload: unknown): void => handlers.event(payload);
    this.channel.on(type, listener);
    const unsubscribe = (): void => {
      this.channel.off(type, listener);
      this.subscriptions.delete(unsubscribe);
    };
    this.subscriptions.add(unsubscribe);
    return unsubscribe;
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {
    for (const unsubscribe of [...this.subscriptions]) unsubscribe();
  }
}

const processChannel = newChannel();

/**
 * A bus on this process's one in-memory channel: every process-local bus of the process hears
 * what any of them publishes, as services started in one process (a local run, a test) do
 * through Redis in production.
 */
export function processLocalBus(): LocalEventBus {
  return new LocalEventBus(processChannel);
}
