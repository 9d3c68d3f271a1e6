export interface BatchQueueOptions<T> {
  /** Payload bytes of an item, counted against `maxBatchBytes`. Default: 0 (only the count limit applies). */
  sizeOf?: (item: T) => number;
  /** A batch stops growing once it holds this many payload bytes (a larger single item still goes alone). */
  maxBatchBytes?: number;
  /** A batch holds at most this many items. */
  maxBatchItems?: number;
  /** `full` once more payload bytes than this wait to be taken; writers hold their sources then. Default 4 MiB. */
  highWaterBytes?: number;
}

/**
 * An unbounded queue, the outgoing half of a bidi stream, taken in batches by one consumer:
 * each `takeBatch()` takes everything queued since the previous one (within the limits), so
 * frames pushed in the same turn, or while the stream was backed up, go out as one message.
 * Ending or failing the queue lets the consumer take what was queued first.
 */
export class BatchQueue<T> {
  private items: T[] = [];
  private head = 0;
  private done = false;
  private error: unknown;
  private batches = 0;
  private pending = 0;
  private drained: (() => void)[] = [];
  private readonly highWaterBytes: number;
  private readonly sizeOf: (item: T) => number;
  private readonly maxBatchBytes: number;
  private readonly maxBatchItems: number;
  private consumer: (() => void) | undefined;
  private scheduled = false;

  constructor(options: BatchQueueOptions<T> = {}) {
    this.sizeOf = options.sizeOf ?? (() => 0);
    this.maxBatchBytes = options.maxBatchBytes ?? 256 * 1024;
    this.maxBatchItems = options.maxBatchItems ?? 1024;
    this.highWaterBytes = options.highWaterBytes ?? 4 * 1024 * 1024;
  }

  /** Payload bytes (by `sizeOf`) pushed and not yet taken. */
  get pendingBytes(): number {
    return this.pending;
  }

  /** More than `highWaterBytes` wait: whoever feeds the queue should hold its source until `whenDrained`. */
  get full(): boolean {
    return this.pending > this.highWaterBytes;
  }

  /**
   * Runs `callback` once the pending bytes fall to half the high-water mark (at once if they have). Never after
   * `end`.
   */
  whenDrained(callback: () => void): void {
    if (this.done) return;
    if (this.pending <= this.highWaterBytes / 2) queueMicrotask(callback);
    else this.drained.push(callback);
  }

  get closed(): boolean {
    return this.done;
  }

  /**
   * How many batches have been taken. An item pushed while this read `n` is still waiting in
   * the queue, and may still be changed in place, as long as it reads `n`.
   */
  get taken(): number {
    return this.batches;
  }

  push(item: T): void {
    if (this.done) return;
    this.items.push(item);
    this.pending += this.sizeOf(item);
    if (this.consumer) this.schedule();
  }

  /**
   * Makes `ready` the queue's consumer: it runs whenever items wait or the queue has ended, on a
   * setImmediate (frames pushed in the same turn join one batch), takes the batches with
   * `takeBatch` and, once that gives none and `closed` holds, reads `failure`.
   */
  consume(ready: () => void): void {
    this.consumer = ready;
    if (this.head < this.items.length || this.done) this.schedule();
  }

  /** The next batch (within the limits), or undefined when nothing waits. */
  takeBatch(): T[] | undefined {
    return this.head < this.items.length ? this.take() : undefined;
  }

  /** What the queue was ended with (`end(error)`); undefined while it runs or after a plain `end()`. */
  get failure(): unknown {
    return this.error;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.consumer?.();
    });
  }

  end(error?: unknown): void {
    if (this.done) return;
    this.done = true;
    this.error = error;
    this.drained = [];
    if (this.consumer) this.schedule();
  }

  private take(): T[] {
    this.batches++;
    const batch: T[] = [];
    let bytes = 0;
    while (this.head < this.items.length && batch.length < this.maxBatchItems) {
      const item = this.items[this.head] as T;
      const size = this.sizeOf(item);
      if (batch.length > 0 && bytes + size > this.maxBatchBytes) break;
      batch.push(item);
      bytes += size;
      this.head++;
    }
    // A body joined to a queued response after its push is counted here only: never below 0.
    this.pending = Math.max(0, this.pending - bytes);
    if (this.drained.length > 0 && this.pending <= this.highWaterBytes / 2) {
      const callbacks = this.drained;
      this.drained = [];
      for (const callback of callbacks) queueMicrotask(callback);
    }
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return batch;
  }
}

/**
 * Payload bytes of a tunnel frame (its `data`, or a response's `body`; control frames count 0), the `sizeOf` of both
 * ends' queues, so one message stays far below ENVELOPE_MAX_BYTES.
 */
export function frameDataBytes(frame: { kind?: { case?: unknown; value?: unknown } }): number {
  const value = frame.kind?.value;
  if (value instanceof Uint8Array) return value.byteLength;
  const body = (value as { body?: unknown } | undefined)?.body;
  return body instanceof Uint8Array ? body.byteLength : 0;
}

/**
 * The HTTP/2 flow-control window both ends of the tunnel advertise, for the stream and the
 * connection. The default 64 KiB allows one window per round trip: 1.3 MB/s over 50 ms, shared
 * by every kubectl stream in the tunnel. 8 MiB allows 160 MB/s at that distance; the memory it
 * may take is bounded per tunnel, and each stream's own backlog is bounded by Pause/Resume.
 */
export const TUNNEL_WINDOW_BYTES = 8 * 1024 * 1024;

/** Both ends ping the tunnel this often by default, and drop it when no answer comes within half of it. */
export const TUNNEL_PING_INTERVAL_MS = 30_000;
