/**
 * A bounded map whose entries expire: the least recently read entry is dropped first once
 * `maxEntries` is reached. Verified credentials are remembered in one (keyed by a hash of the
 * credential, never the credential itself), each until its own expiry.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();

  constructor(private readonly options: { ttlMs: number; maxEntries?: number }) {}

  /** The live value of `key`; a read refreshes its place in the eviction order, not its expiry. */
  get(key: K, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.until <= now) return undefined;
    // Re-inserted last, so the map's first entry is always the least recently used.
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Remembers `value` for `ttlMs`, or until `notAfter` (epoch ms) when that comes first. */
  set(key: K, value: V, notAfter = Infinity, now = Date.now()): void {
    const until = Math.min(now + this.options.ttlMs, notAfter);
    if (until <= now) return;
    this.entries.delete(key);
    if (this.entries.size >= (this.options.maxEntries ?? 10_000)) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, until });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * Concurrent calls with one key share one run of `work`: a burst of requests presenting the same
 * new credential costs one verification, not one each. The key is forgotten once the run settles.
 */
export function singleFlight<K, V>(): (key: K, work: () => Promise<V>) => Promise<V> {
  const running = new Map<K, Promise<V>>();
  return (key, work) => {
    const current = running.get(key);
    if (current !== undefined) return current;
    const started = work().finally(() => running.delete(key));
    running.set(key, started);
    return started;
  };
}
