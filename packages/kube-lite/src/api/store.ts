/**
 * Objects, the global resourceVersion counter, watch fan-out and the event history that lets
 * a watch resume; optionally persisted to `<dataDir>/state.json` (temp file + rename).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from './registry.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: EventType;
  typeKey: string;
  resourceVersion: number;
  object: KubeObject;
  /** The object before a MODIFIED event, so selector-filtered watches can turn it into ADDED or DELETED. */
  previous?: KubeObject;
}

export type Listener = (event: StoreEvent) => void;

interface PersistedState {
  version: 1;
  resourceVersion: number;
  objects: Record<string, KubeObject[]>;
}

export interface StoreOptions {
  dataDir?: string;
  /** How many events are kept for watches that resume from an older resourceVersion. */
  historySize?: number;
}

const clone = <T>(value: T): T => structuredClone(value);

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export class Store {
  private rv = 1;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly history: StoreEvent[] = [];
  /** A watch may resume from any resourceVersion at or after this one. */
  private oldestResumable = 1;
  private readonly listeners = new Set<Listener>();
  private readonly historySize: number;
  private readonly file: string | undefined;
  private saveTimer: NodeJS.Timeout | undefined;

  constructor(options: StoreOptions = {}) {
    this.historySize = options.historySize ?? 10_000;
    if (options.dataDir) {
      mkdirSync(options.dataDir, { recursive: true });
      this.file = join(options.dataDir, 'state.json');
      this.load();
    }
  }

  get resourceVersion(): number {
    return this.rv;
  }

  get oldestResumableVersion(): number {
    return this.oldestResumable;
  }

  get(typeKey: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const obj = this.objects.get(typeKey)?.get(objectKey(namespace, name));
    return obj ? clone(obj) : undefined;
  }

  /** Objects of one type, sorted by namespace then name as etcd keys are. */
  list(typeKey: string, namespace?: string): KubeObject[] {
    const all = [...(this.objects.get(typeKey)?.entries() ?? [])];
    const selected = namespace === undefined ? all : all.filter(([, o]) => o.metadata.namespace === namespace);
    return selected.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => clone(o));
  }

  /** Stores a new object, stamping the next resourceVersion. The caller checks for duplicates. */
  create(typeKey: string, obj: KubeObject): KubeObject {
    return this.write('ADDED', typeKey, obj);
  }

  update(typeKey: string, obj: KubeObject): KubeObject {
    return this.write('MODIFIED', typeKey, obj);
  }

  remove(typeKey: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const byKey = this.objects.get(typeKey);
    const key = objectKey(namespace, name);
    const existing = byKey?.get(key);
    if (!byKey || !existing) return undefined;
    byKey.delete(key);
    const removed = clone(existing);
    removed.metadata.resourceVersion = String(++this.rv);
    this.emit({ type: 'DELETED', typeKey, resourceVersion: this.rv, object: removed });
    return clone(removed);
  }

  private write(type: EventType, typeKey: string, obj: KubeObject): KubeObject {
    const stored = clone(obj);
    stored.metadata.resourceVersion = String(++this.rv);
    let byKey = this.objects.get(typeKey);
    if (!byKey) {
      byKey = new Map();
      this.objects.set(typeKey, byKey);
    }
    const key = objectKey(stored.metadata.namespace, stored.metadata.name ?? '');
    const previous = byKey.get(key);
    byKey.set(key, stored);
    const event: StoreEvent = { type, typeKey, resourceVersion: this.rv, object: clone(stored) };
    if (previous) event.previous = previous;
    this.emit(event);
    return clone(stored);
  }

  private emit(event: StoreEvent): void {
    this.history.push(event);
    if (this.history.length > this.historySize) {
      const dropped = this.history.splice(0, this.history.length - this.historySize);
      this.oldestResumable = (dropped[dropped.length - 1] as StoreEvent).resourceVersion;
    }
    this.scheduleSave();
    for (const listener of [...this.listeners]) listener(event);
  }

  /**
   * Events after `resourceVersion`, or undefined when that version is older than the history
   * kept (the caller answers 410 Expired).
   */
  eventsSince(resourceVersion: number): StoreEvent[] | undefined {
    if (resourceVersion < this.oldestResumable) return undefined;
    return this.history.filter((e) => e.resourceVersion > resourceVersion);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Drops the history as an etcd compaction does: a watch resuming from any resourceVersion
   * issued so far gets 410 Expired. The counter moves on by one so that this holds even for
   * the newest version a client has seen.
   */
  compact(): void {
    this.history.length = 0;
    this.rv += 1;
    this.oldestResumable = this.rv;
    this.scheduleSave();
  }

  private load(): void {
    if (!this.file || !existsSync(this.file)) return;
    const state = JSON.parse(readFileSync(this.file, 'utf8')) as PersistedState;
    this.rv = state.resourceVersion;
    for (const [typeKey, objs] of Object.entries(state.objects)) {
      const byKey = new Map<string, KubeObject>();
      for (const obj of objs) byKey.set(objectKey(obj.metadata.namespace, obj.metadata.name ?? ''), obj);
      this.objects.set(typeKey, byKey);
    }
    // History is not persisted: watches from before a restart must relist.
    this.oldestResumable = this.rv;
  }

  private scheduleSave(): void {
    if (!this.file || this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.save();
    }, 25);
  }

  /** Writes the state file now (atomically: temp file, then rename). */
  save(): void {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
    }
    if (!this.file) return;
    const state: PersistedState = { version: 1, resourceVersion: this.rv, objects: {} };
    for (const [typeKey, byKey] of this.objects) state.objects[typeKey] = [...byKey.values()];
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(state));
    renameSync(temp, this.file);
  }

  close(): void {
    this.save();
    this.listeners.clear();
  }
}
