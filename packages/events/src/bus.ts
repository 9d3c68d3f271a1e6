export interface EventHandlers {
  /** A payload as published; consumers check its shape (`isFlagEvent`, `isAccessEvent`). */
  event(payload: unknown): void;
  /** Called when events may have been missed (a reconnect): drop everything cached. */
  resync?(): void;
}

/**
 * The platform's event transport: the API server's outbox relay publishes committed events,
 * every process subscribes to the types whose caches it keeps. `type` is an event name from
 * `@gsp/platform-contract`; on Redis it is also the channel (behind the key prefix).
 *
 * A process builds one (`createEventBus`) and hands it to everything that publishes or listens.
 */
export interface EventBus {
  /** Resolves once the event is handed to the transport; rejects if it could not be. */
  publish(type: string, payload: object): Promise<void>;
  /** Returns unsubscribe. */
  subscribe(type: string, handlers: EventHandlers): () => void;
  /** Resolves once subscriptions are live (Redis subscribed); at once for an in-process bus. */
  ready(): Promise<void>;
  /** Ends this bus's subscriptions and connections. */
  close(): Promise<void>;
}

let constructed = 0;

/** Called by every bus constructor, so a test can check that a process builds exactly one. */
export function countConstruction(): void {
  constructed += 1;
}

/** How many buses this process has constructed so far (every kind). */
export function busesConstructed(): number {
  return constructed;
}
