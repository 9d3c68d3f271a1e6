export interface CachedValue<V> {
  value: V;
  /** True when the value outlived its TTL because a reload failed. */
  stale: boolean;
}

export interface LoadingCacheOptions {
  /** How long a loaded value is served without asking again. */
  ttlMs: number;
  /** The oldest entry is dropped past this many. */
  maxEntries?: number;
  /** A load that takes longer fails (and a stale value, if any, is served). Default 2000 ms. */
  timeoutMs?: number;
  /** After a failed load, serve the stale value this long before trying again. Default 1000 ms. */
  retryAfterMs?: number;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
  stale: boolean;
}

/**
 * A read-through cache with a TTL: concurrent misses of one key share one load, an expired
 * value is kept to be served (marked stale) when its reload fails, without waiting while the store
 * stays down (retries run in the background every `retryAfterMs`), and `delete` during a load
 * keeps that load's answer out of the cache and out of later reads, since it may predate what the
 * delete announced.
 */
export class LoadingCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private readonly inflight = new Map<K, Promise<CachedValue<V>>>();
  /** Bumped by every delete; a load that saw another epoch does not store its answer. */
  private epoch = 0;
  private readonly maxEntries: number;
  private readonly timeoutMs: number;
  private readonly retryAfterMs: number;

  constructor(
    private readonly load: (key: K) => Promise<V>,
    private readonly options: LoadingCacheOptions,
  ) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.retryAfterMs = options.retryAfterMs ?? 1000;
  }

  /** The fresh value of `key` if there is one: no promise, no allocation (the hot path). */
  fresh(key: K): V | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.expiresAt > Date.now() ? entry.value : undefined;
  }

  get(key: K): Promise<CachedValue<V>> {
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.expiresAt > Date.now())
      return Promise.resolve({ value: entry.value, stale: entry.stale });
    const pending = this.inflight.get(key) ?? this.startLoad(key);
    // The last reload failed (the store is down): answer with the stale value now and let the retry
    // run in the background, instead of making every reader wait out the timeout again.
    if (entry?.stale) return Promise.resolve({ value: entry.value, stale: true });
    return pending;
  }

  private startLoad(key: K): Promise<CachedValue<V>> {
    const load = this.reload(key).finally(() => {
      if (this.inflight.get(key) === load) this.inflight.delete(key);
    });
    // A background retry's failure is already recorded in the entry; nobody else may be listening.
    load.catch(() => undefined);
    this.inflight.set(key, load);
    return load;
  }

  private async reload(key: K): Promise<CachedValue<V>> {
    const epoch = this.epoch;
    let timer: NodeJS.Timeout | undefined;
    try {
      const value = await Promise.race([
        this.load(key),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`the store did not answer within ${this.timeoutMs} ms`)),
            this.timeoutMs,
          );
        }),
      ]);
      if (epoch === this.epoch) this.store(key, { value, expiresAt: Date.now() + this.options.ttlMs, stale: false });
      return { value, stale: false };
    } catch (err) {
      const previous = this.entries.get(key);
      if (previous === undefined || epoch !== this.epoch) throw err;
      this.entries.set(key, { value: previous.value, expiresAt: Date.now() + this.retryAfterMs, stale: true });
      return { value: previous.value, stale: true };
    } finally {
      clearTimeout(timer);
    }
  }

  private store(key: K, entry: Entry<V>): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, entry);
  }

  delete(key: K): void {
    this.epoch += 1;
    this.entries.delete(key);
    this.inflight.delete(key);
  }

  /** Drops every entry for which `predicate` holds. */
  deleteWhere(predicate: (key: K) => boolean): void {
    this.epoch += 1;
    for (const key of this.entries.keys()) if (predicate(key)) this.entries.delete(key);
    for (const key of this.inflight.keys()) if (predicate(key)) this.inflight.delete(key);
  }

  clear(): void {
    this.epoch += 1;
    this.entries.clear();
    this.inflight.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
