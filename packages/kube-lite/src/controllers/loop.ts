/**
 * The loop every simulated controller runs in: store events are handed to the controllers that
 * watch their type, and after a restart each controller finishes what the data dir brought back.
 */
import type { Api } from '../api/api.js';
import type { Consoles } from '../container/console.js';
import { RESOURCE_TYPES, typeKey, type ResourceType } from '../api/registry.js';
import { StatusError } from '../api/status.js';
import type { StoreEvent } from '../api/store.js';

const typeByKey = new Map(RESOURCE_TYPES.map((t) => [typeKey(t), t] as const));
export const typeOf = (group: string, plural: string): ResourceType =>
  typeByKey.get(`${group}/${plural}`) as ResourceType;

/** Timers that all stop when kube-lite closes. */
export class Timers {
  private readonly pending = new Set<NodeJS.Timeout>();
  private closed = false;

  after(ms: number, fn: () => void): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      if (!this.closed) runSafely(fn);
    }, ms);
    this.pending.add(timer);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }
}

/** Controllers race with clients exactly as in a cluster: losing a race (404, 409) is normal. */
export function runSafely(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
    throw err;
  }
}

export interface ControllerContext {
  api: Api;
  consoles: Consoles;
  timers: Timers;
  /** Delay between the steps of simulated work, such as a pod starting. */
  stepMs: number;
}

/** One behaviour of the simulated cluster. */
export interface Controller {
  /** The type keys (`group/plural`) whose events it gets; every type when absent. */
  watches?: readonly string[];
  /** Reacts to one store event; the work itself goes on the timers, as a real controller's queue. */
  onEvent: (event: StoreEvent) => void;
  /** Finishes what a data dir brought back mid-flight, as a controller does after a restart. */
  resume?: () => void;
}

/**
 * Runs `controllers` on one store subscription, each event going to them in the order given;
 * returns the function that stops them.
 */
export function runControllers(ctx: ControllerContext, controllers: readonly Controller[]): () => void {
  for (const controller of controllers) if (controller.resume) ctx.timers.after(0, controller.resume);
  return ctx.api.store.subscribe((event) => {
    for (const controller of controllers)
      if (!controller.watches || controller.watches.includes(event.typeKey)) controller.onEvent(event);
  });
}

/** The stored objects of one type as ADDED events, as an informer's first list delivers them. */
export function storedAsAdded(api: Api, key: string): StoreEvent[] {
  return api.store
    .list(key)
    .map((object) => ({ type: 'ADDED', typeKey: key, resourceVersion: api.store.resourceVersion, object }));
}
