/** An unbounded async queue: the outgoing half of a bidi stream. Ending or failing it ends the iteration. */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private waiting: ((r: IteratorResult<T>) => void) | undefined;
  private failWaiting: ((err: unknown) => void) | undefined;
  private done = false;
  private error: unknown;

  get closed(): boolean {
    return this.done;
  }

  push(item: T): void {
    if (this.done) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = this.failWaiting = undefined;
      resolve({ value: item, done: false });
    } else this.items.push(item);
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

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const item = this.items.shift();
        if (item !== undefined) return Promise.resolve({ value: item, done: false });
        if (this.done) return this.error !== undefined ? Promise.reject(this.error) : Promise.resolve({ value: undefined, done: true });
        return new Promise<IteratorResult<T>>((resolve, reject) => {
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
