import { ListWatch } from '@kubernetes/client-node';
import type { KubernetesListObject, KubernetesObject, Watch } from '@kubernetes/client-node';
import type { FastifyBaseLogger } from 'fastify';
import { ServiceUnavailable, withRetryAfter } from '../errors.js';
import { CLUSTER_RETRY_AFTER_SECONDS } from './errors.js';

export type ChangeType = 'add' | 'update' | 'delete';

/**
 * How long a write waits for the watch to show it (`waitFor`), so the caller's next read sees
 * it; then it answers from the write anyway.
 */
export const SETTLE_MS = 2000;

/**
 * A list + watch of one kind of object, kept in memory: reads never wait on the cluster. A
 * failed list or watch is retried every second (logged once until it works again); the first
 * successful list makes it `ready`. `waitFor` gives a writer read-your-writes: it resolves once
 * the watch has brought the cache up to what the write answered.
 */
export class Informer<T extends KubernetesObject> {
  private readonly informer: ListWatch<T>;
  private readonly listeners = new Set<(type: ChangeType, object: T) => void>();
  private listed = false;
  private synced = false;
  private stopped = false;
  private failing = false;
  private restartTimer: NodeJS.Timeout | undefined;
  /** Grows on every change: lets readers memoise what they derive from `list()`. */
  version = 0;

  constructor(
    private readonly what: string,
    path: string,
    watch: Watch,
    list: () => Promise<KubernetesListObject<T>>,
    private readonly log: FastifyBaseLogger,
    labelSelector?: string,
  ) {
    this.informer = new ListWatch<T>(
      path,
      watch,
      () =>
        list().then((result) => {
          this.listed = true;
          this.works();
          return result;
        }),
      false,
      labelSelector,
    );
    for (const type of ['add', 'update', 'delete'] as const) {
      this.informer.on(type, (object) => {
        this.works();
        this.version++;
        for (const listener of this.listeners) listener(type, object);
      });
    }
    this.informer.on('error', (err) => {
      if (this.stopped) return;
      if (!this.failing)
        this.log.warn(
          { err: { message: (err as Error | undefined)?.message } },
          `the watch of ${this.what} failed; retrying every second until it works`,
        );
      this.failing = true;
      clearTimeout(this.restartTimer);
      this.restartTimer = setTimeout(() => {
        if (!this.stopped) this.begin().catch(() => undefined);
      }, 1000);
    });
  }

  private works(): void {
    if (this.failing) this.log.info(`the watch of ${this.what} works again`);
    this.failing = false;
  }

  private async begin(): Promise<void> {
    await this.informer.start();
    // start() resolves after a failed list too (refused by RBAC, say): only a listed one is synced.
    if (this.listed) this.synced = true;
  }

  async start(): Promise<void> {
    await this.begin();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    await this.informer.stop();
  }

  get ready(): boolean {
    return this.synced;
  }

  /** 503 with `Retry-After` until the first list: an empty cache must not read as "there are none". */
  requireReady(): void {
    if (!this.synced)
      throw withRetryAfter(
        new ServiceUnavailable(`the ${this.what} have not been listed from Kubernetes yet`),
        CLUSTER_RETRY_AFTER_SECONDS,
      );
  }

  get(namespace: string, name: string): T | undefined {
    return this.informer.get(name, namespace);
  }

  list(namespace?: string): readonly T[] {
    return this.informer.list(namespace);
  }

  onChange(listener: (type: ChangeType, object: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Resolves true once `settled` holds for the cached object (undefined when absent), false after
   * `timeoutMs`: a write's answer is then served from the write itself, never waited on forever.
   */
  waitFor(
    namespace: string,
    name: string,
    settled: (object: T | undefined) => boolean,
    timeoutMs: number,
  ): Promise<boolean> {
    if (settled(this.get(namespace, name))) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (result: boolean): void => {
        clearTimeout(timer);
        unsubscribe();
        resolve(result);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      const unsubscribe = this.onChange((_type, object) => {
        if (
          object.metadata?.namespace === namespace &&
          object.metadata?.name === name &&
          settled(this.get(namespace, name))
        )
          done(true);
      });
    });
  }
}

/**
 * A store whose reads come from one informer: `start` resolves after the first list (or its
 * failure, retried in the background), `stop` ends the watch, and until a list has succeeded
 * the store is not `ready` (its reads answer 503).
 */
export abstract class InformerStore<T extends KubernetesObject> {
  constructor(readonly informer: Informer<T>) {}

  async start(): Promise<void> {
    await this.informer.start();
  }

  async stop(): Promise<void> {
    await this.informer.stop();
  }

  get ready(): boolean {
    return this.informer.ready;
  }
}
