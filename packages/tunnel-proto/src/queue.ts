export interface BatchQueueOptions<T> {
  /** Payload bytes of an item, counted against `maxBatchBytes`. Default: 0 (only the count limit applies). */
  sizeOf?: (item: T) => number;
  /** A batch stops growing once it holds this many payload bytes (a larger single item still goes alone). */
  maxBatchBytes?: number;
  /** A batch holds at most this many items. */
  maxBatchItems?: number;
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
  private readonly sizeOf: (item: T) => number;
  private readonly maxBatchBytes: number;
  private readonly maxBatchItems: number;

  constructor(options: BatchQueueOptions<T> = {}) {
    this.sizeOf = options.sizeOf ?? (() => 0);
    this.maxBatchBytes = options.maxBatchBytes ?? 256 * 1024;
    this.maxBatchItems = options.maxBatchItems ?? 1024;
  }

  get closed(): boolean {
    return this.done;
  }

  push(item: T): void {
    if (this.done) return;
    this.items.push(item);
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
    if (this.waiting) {
      const resolve = this.waiting;
      const reject = this.failWaiting;
      this.waiting = this.failWaiting = undefined;
      if (error !== undefined) reject?.(error);
      else resolve({ value: undefined, done: true });
    }
  }

  private take(): T[] {
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
        if (this.done) return this.error !== undefined ? Promise.reject(this.error) : Promise.resolve({ value: undefined, done: true });
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
 * Payload bytes of a tunnel frame (its `data`; control frames count 0), the `sizeOf` of both
 * ends' queues, so one message stays far below Connect's 4 MiB read limit.
 */
export function frameDataBytes(frame: { kind?: { case?: unknown; value?: unknown } }): number {
  return frame.kind?.case === 'data' && frame.kind.value instanceof Uint8Array ? frame.kind.value.byteLength : 0;
}
