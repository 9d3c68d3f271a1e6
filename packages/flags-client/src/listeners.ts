import type { Logger } from '@gsp/service-kit';

export interface FlagChange {
  key: string;
  /** The scope whose values may have changed; `all` after a reconnect, when events may be lost. */
  scope: { type: 'platform' } | { type: 'cluster'; clusterId: string } | { type: 'all' };
}

/** Who asked to hear of changes to which flag; a listener that throws is logged and the rest still hear. */
export class ChangeListeners {
  private readonly byKey = new Map<string, Set<(change: FlagChange) => void>>();

  constructor(private readonly log: Logger) {}

  add(key: string, listener: (change: FlagChange) => void): () => void {
    let set = this.byKey.get(key);
    if (!set) this.byKey.set(key, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  notify(change: FlagChange): void {
    const set = this.byKey.get(change.key);
    if (!set) return;
    for (const listener of set) {
      try {
        listener(change);
      } catch (err) {
        this.log.warn({ err: { message: (err as Error).message } }, 'flag change listener failed');
      }
    }
  }

  clear(): void {
    this.byKey.clear();
  }
}
