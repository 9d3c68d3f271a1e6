/**
 * A bounded map whose entries expire. Once `maxEntries` is reached, a new entry pushes out the
 * oldest entry not read since the last eviction passed it by (second chance: close to least
 * recently used, and a read only marks its entry). Verified credentials are remembered in one
 * (keyed by a hash of the credential, never the credential itself), each until its own expiry.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number; read: boolean }>();

  constructor(private readonly options: { ttlMs: number; maxEntries?: number }) {}

  /** The live value of `key`; a read spares it from the next eviction, and does not extend its expiry. */
  get(key: K, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= now) {
      this.entries.delete(key);
      return undefined;
    }
    // A mark rather than a re-insertion at the back: deleting and re-adding on every read made the
    // map rebuild its table every few reads, which cost a request path about a microsecond.
    entry.read = true;
    return entry.value;
  }

  /** Remembers `value` for `ttlMs`, or until `notAfter` (epoch ms) when that comes first. */
  set(key: K, value: V, notAfter = Infinity, now = Date.now()): void {
    const until = Math.min(now + this.options.ttlMs, notAfter);
    if (until <= now) return;
    this.entries.delete(key);
    if (this.entries.size >= (this.options.maxEntries ?? 10_000)) this.evictOne();
    this.entries.set(key, { value, until, read: false });
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

  /**
   * Drops the oldest entry not read since it was last passed by; each read one passed by goes to the back,
   * unmarked.
   */
  private evictOne(): void {
    for (const [key, entry] of this.entries) {
      this.entries.delete(key);
      if (!entry.read) return;
      entry.read = false;
      this.entries.set(key, entry);
    }
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
