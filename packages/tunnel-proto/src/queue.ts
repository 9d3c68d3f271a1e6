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
 * An unbounded async queue, the outgoing half of a bidi stream, iterated in batches: each
 * `next()` takes everything queued since the previous one (within the limits), so a writer
 * that is busy with one message finds the frames that arrived meanwhile waiting as one.
 * Ending or failing the queue ends the iteration after the items already queued.
 */
export class BatchQueue<T> implements AsyncIterable<T[]> {
  private items: T[] = [];
  private head = 0;
  private waiting: ((r: IteratorResult<T[]>) => void) | undefined;
  private failWaiting: ((err: unknown) => void) | undefined;
  private done = false;
  private error: unknown;
  private batches = 0;
  private pending = 0;
  private drained: (() => void)[] = [];
  private readonly highWaterBytes: number;
  private readonly sizeOf: (item: T) => number;
  private readonly maxBatchBytes: number;
  private readonly maxBatchItems: number;

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

  /** Runs `callback` once the pending bytes fall to half the high-water mark (at once if they have). Never after `end`. */
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
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = this.failWaiting = undefined;
      // Resolve on a microtask so frames pushed in the same tick join this batch.
      setImmediate(() => resolve({ value: this.take(), done: false }));
    }
  }

  end(error?: unknown): void {
    if (this.done) return;
    this.done = true;
    this.error = error;
    this.drained = [];
    if (this.waiting) {
      const resolve = this.waiting;
      const reject = this.failWaiting;
      this.waiting = this.failWaiting = undefined;
      if (error !== undefined) reject?.(error);
      else resolve({ value: undefined, done: true });
    }
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

  [Symbol.asyncIterator](): AsyncIterator<T[]> {
    return {
      next: () => {
        if (this.head < this.items.length) return Promise.resolve({ value: this.take(), done: false });
        if (this.done)
          return this.error !== undefined
            ? Promise.reject(this.error)
            : Promise.resolve({ value: undefined, done: true });
        return new Promise<IteratorResult<T[]>>((resolve, reject) => {
          this.waiting = resolve;
          this.failWaiting = reject;
        });
      },
      return: () => {
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
      throw: (err: unknown) => {
        this.end();
        return Promise.reject(err);
      },
    };
  }
}

/**
 * Payload bytes of a tunnel frame (its `data`, or a response's `body`; control frames count 0), the `sizeOf` of both
 * ends' queues, so one message stays far below Connect's 4 MiB read limit.
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
