import type pg from 'pg';
import type { Registry } from 'prom-client';
import { FLAG_UPDATED_EVENT, isFlagEvent } from '@gsp/platform-contract';
import type { FlagEvent, FlagEventScope, SwitchRecord } from '@gsp/platform-contract';
import type { EventBus } from '@gsp/events';
import { silentLogger } from '@gsp/service-kit';
import type { Logger } from '@gsp/service-kit';
import { FLAGS, CLI_ACCESS_ENABLED } from './registry.js';
import type { FlagDefinition } from './registry.js';
import { readEnvPins, resolveFlag } from './evaluate.js';
import type { DetailedEvaluation, Evaluation, EvaluationContext } from './evaluation.js';
import { FlagsClientError } from './errors.js';
import { ChangeListeners } from './listeners.js';
import type { FlagChange } from './listeners.js';
import { FlagsMetrics } from './metrics.js';
import { createOfrepResolver, evaluateRemotely } from './ofrep.js';
import type { OfrepResolver, OfrepResolverOptions } from './ofrep.js';
import { StoreReader } from './store.js';
import type { ScopeValues } from './store.js';

export interface FlagsClientOptions {
  /** Read-only use. Give it `connectionTimeoutMillis` so an unreachable store fails fast. */
  pool: pg.Pool;
  /**
   * The process's event bus (`createEventBus` from `@gsp/events`): the client drops cached values
   * on its `featureflags.updated` events. The caller owns it and closes it after the client.
   */
  bus: EventBus;
  /** Cache lifetime, `SERVICE_CACHE_FLAGS_TTL`. Default 10 000 ms. */
  ttlMs?: number | undefined;
  /** Where env pins are read from. Default `process.env`; ignored when `pins` is given. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Env pins already read (by flag key), as a service's config holds them; overrides `env`. */
  pins?: ReadonlyMap<string, boolean> | undefined;
  /** How long a store read may take before the last known value is served. Default 2000 ms. */
  storeTimeoutMs?: number | undefined;
  /** After a failed read, serve the last known value this long before trying again. Default 1000 ms. */
  retryAfterMs?: number | undefined;
  logger?: Logger | undefined;
  /** Prometheus registry for the client's metrics. */
  registry?: Registry | undefined;
  /**
   * `SERVICE_FLAGS_PROVIDER=ofrep`: flags not in the registry (product and rollout flags) are
   * resolved by this OFREP service. Registry flags, the kill switch among them, never are.
   */
  ofrep?: OfrepResolverOptions | undefined;
}

interface ScopeEntry {
  values: ScopeValues;
  expiresAt: number;
  /** Set when the entry was kept past its life because the store could not be read. */
  stale: boolean;
}

/** The record while it counts: one past its `expiresAt` is no value at all, even before the API server clears it. */
function live(record: SwitchRecord | undefined, now: number): SwitchRecord | undefined {
  return record === undefined || record.expiresAt === null || record.expiresAt > now ? record : undefined;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0)
    throw new FlagsClientError('ERR_FLAGS_OPTIONS', `${name} must be a finite number >= 0, got ${value}`);
  return value;
}

function isEventBus(value: unknown): value is EventBus {
  const bus = value as Partial<EventBus> | undefined;
  return typeof bus?.subscribe === 'function' && typeof bus.publish === 'function';
}

/**
 * Cached evaluation of the registry's flags: answers from memory while fresh, one shared store
 * read per miss, the last value seen while the store cannot be read, and cache entries dropped
 * as the bus announces writes. Reading the store, the metrics, the change listeners and OFREP
 * live beside it (`store.ts`, `metrics.ts`, `listeners.ts`, `ofrep.ts`).
 */
export class FlagsClient {
  private readonly ttlMs: number;
  private readonly store: StoreReader;
  private readonly metrics: FlagsMetrics;
  private readonly listeners: ChangeListeners;
  private readonly unsubscribe: () => void;
  private readonly flags = new Map<string, FlagDefinition>();
  /** Env pins by flag key, and precomputed answers: `evaluate` never reads the store for them. */
  private readonly pins = new Map<string, boolean>();
  private readonly pinned = new Map<string, Evaluation>();
  private readonly remote: OfrepResolver | undefined;

  private platform: ScopeEntry | undefined;
  private readonly clusters = new Map<string, ScopeEntry>();
  /** Bumped on invalidation, so a load that started before it does not cache what it read. */
  private platformEpoch = 0;
  private readonly clusterEpochs = new Map<string, number>();
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly retryAfterMs: number;
  private closed = false;

  constructor(options: FlagsClientOptions) {
    if (!options || typeof options.pool?.query !== 'function')
      throw new FlagsClientError('ERR_FLAGS_OPTIONS', 'options.pool must be a pg.Pool');
    this.ttlMs = positive('options.ttlMs', options.ttlMs, 10_000);
    const storeTimeoutMs = positive('options.storeTimeoutMs', options.storeTimeoutMs, 2000);
    this.retryAfterMs = positive('options.retryAfterMs', options.retryAfterMs, 1000);
    const log = options.logger ?? silentLogger;
    const pins = options.pins ?? readEnvPins(options.env ?? process.env);
    if (!isEventBus(options.bus))
      throw new FlagsClientError(
        'ERR_FLAGS_OPTIONS',
        'options.bus must be an EventBus (createEventBus of @gsp/events)',
      );
    for (const flag of FLAGS) {
      this.flags.set(flag.key, flag);
      const pin = pins.get(flag.key);
      if (pin !== undefined) {
        this.pins.set(flag.key, pin);
        this.pinned.set(flag.key, { value: pin, source: 'env', envPinned: true, stale: false });
      }
    }
    this.metrics = new FlagsMetrics(options.registry);
    this.store = new StoreReader({
      pool: options.pool,
      timeoutMs: storeTimeoutMs,
      retryAfterMs: this.retryAfterMs,
      log,
      metrics: this.metrics,
    });
    this.listeners = new ChangeListeners(log);
    this.remote = options.ofrep ? createOfrepResolver({ logger: log, ...options.ofrep }) : undefined;
    this.unsubscribe = options.bus.subscribe(FLAG_UPDATED_EVENT, {
      event: (e) => {
        if (isFlagEvent(e)) this.onEvent(e);
      },
      resync: () => this.invalidateAll(),
    });
  }

  evaluate(key: string, context: EvaluationContext = {}): Promise<Evaluation> {
    const pin = this.closed ? undefined : this.pinned.get(key);
    if (pin) return Promise.resolve(pin);
    if (this.remote && !this.closed && !this.flags.has(key)) return evaluateRemotely(this.remote, key, context);
    return this.evaluateWith(key, context, false);
  }

  /** `cli_access.enabled` for one cluster. */
  cliAccess(context: EvaluationContext): Promise<Evaluation> {
    return this.evaluate(CLI_ACCESS_ENABLED, context);
  }

  /** Like `evaluate`, with the stored values; reads the store even for a pinned flag. */
  evaluateDetailed(key: string, context: EvaluationContext = {}): Promise<DetailedEvaluation> {
    return this.evaluateWith(key, context, true) as Promise<DetailedEvaluation>;
  }

  /**
   * `evaluateDetailed` answered from memory, without a promise, when what it needs is cached and
   * fresh; `undefined` when the store must be read (then call `evaluateDetailed`). A hot read path
   * (the API server's flag GET) saves the promise and its turn of the event loop.
   */
  peekDetailed(key: string, context: EvaluationContext = {}): DetailedEvaluation | undefined {
    if (this.closed) return undefined;
    const flag = this.flags.get(key);
    if (!flag) return undefined;
    const fresh = this.freshEntries(context.clusterId, Date.now());
    return fresh && (this.resolve(flag, fresh.platform, fresh.cluster, false, true) as DetailedEvaluation);
  }

  /** The cached entries an evaluation at `clusterId` needs, if all are fresh. */
  private freshEntries(
    clusterId: string | undefined,
    now: number,
  ): { platform: ScopeEntry; cluster: ScopeEntry | undefined } | undefined {
    const platform = this.platform;
    if (!platform || platform.expiresAt <= now) return undefined;
    if (clusterId === undefined) return { platform, cluster: undefined };
    const cluster = this.clusters.get(clusterId);
    return cluster && cluster.expiresAt > now ? { platform, cluster } : undefined;
  }

  private evaluateWith(
    key: string,
    context: EvaluationContext,
    detailed: boolean,
  ): Promise<Evaluation | DetailedEvaluation> {
    if (this.closed) return Promise.reject(new FlagsClientError('ERR_FLAGS_CLOSED', 'the flags client is closed'));
    const flag = this.flags.get(key);
    if (!flag) return Promise.reject(new FlagsClientError('ERR_FLAG_UNKNOWN', `unknown flag ${JSON.stringify(key)}`));
    const clusterId = context.clusterId;
    const now = Date.now();
    const fresh = this.freshEntries(clusterId, now);
    if (fresh) return Promise.resolve(this.resolve(flag, fresh.platform, fresh.cluster, false, detailed));
    return this.slowPath(flag, clusterId, now, detailed);
  }

  private resolve(
    flag: FlagDefinition,
    platform: ScopeEntry | undefined,
    cluster: ScopeEntry | undefined,
    forceStale: boolean,
    detailed: boolean,
  ): Evaluation | DetailedEvaluation {
    const now = Date.now();
    const platformRecord = live(platform?.values.get(flag.key), now);
    const clusterRecord = live(cluster?.values.get(flag.key), now);
    const platformValue = platformRecord?.value;
    const clusterValue = clusterRecord?.value;
    const stale = forceStale || platform?.stale === true || cluster?.stale === true;
    if (stale) this.metrics.servedStale();
    const { value, source, envPinned } = resolveFlag(flag, {
      env: this.pins.get(flag.key),
      platform: platformValue,
      cluster: clusterValue,
    });
    const record = source === 'cluster' ? clusterRecord : source === 'platform' ? platformRecord : undefined;
    return detailed
      ? { value, source, envPinned, stale, record, platformValue, clusterValue, platformRecord, clusterRecord }
      : { value, source, envPinned, stale, record };
  }

  private async slowPath(
    flag: FlagDefinition,
    clusterId: string | undefined,
    now: number,
    detailed: boolean,
  ): Promise<Evaluation | DetailedEvaluation> {
    if (this.store.worthAsking(now)) await this.load(clusterId);
    const platform = this.platform;
    const cluster = clusterId === undefined ? undefined : this.clusters.get(clusterId);
    // Nothing ever seen and the store unreachable: the built-in default, marked stale.
    const missing = !platform || (clusterId !== undefined && !cluster);
    return this.resolve(flag, platform, cluster, missing, detailed);
  }

  /** Loads the platform values and one cluster's, with one query; concurrent misses share it. */
  private load(clusterId: string | undefined): Promise<void> {
    const key = clusterId ?? '';
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.query(clusterId).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return pending;
  }

  private async query(clusterId: string | undefined): Promise<void> {
    const platformEpoch = this.platformEpoch;
    const clusterEpoch = clusterId === undefined ? 0 : (this.clusterEpochs.get(clusterId) ?? 0);
    let values: Awaited<ReturnType<StoreReader['read']>>;
    try {
      values = await this.store.read(clusterId);
    } catch {
      return this.keepStale(clusterId);
    }
    // An invalidation that arrived while the query ran wins: do not cache what may predate it.
    const superseded =
      this.platformEpoch !== platformEpoch ||
      (clusterId !== undefined && (this.clusterEpochs.get(clusterId) ?? 0) !== clusterEpoch);
    const expiresAt = superseded ? 0 : Date.now() + this.ttlMs;
    this.platform = { values: values.platform, expiresAt, stale: false };
    if (clusterId !== undefined) this.clusters.set(clusterId, { values: values.cluster, expiresAt, stale: false });
  }

  /** The store could not be read: what is cached is served, marked stale, until the store is tried again. */
  private keepStale(clusterId: string | undefined): void {
    const retryAt = Date.now() + this.retryAfterMs;
    if (this.platform) this.platform = { ...this.platform, expiresAt: retryAt, stale: true };
    const cluster = clusterId === undefined ? undefined : this.clusters.get(clusterId);
    if (cluster && clusterId !== undefined)
      this.clusters.set(clusterId, { ...cluster, expiresAt: retryAt, stale: true });
  }

  /** Drops what a write to `scope` may have changed; also used by the writer for read-your-writes. */
  invalidate(scope: FlagEventScope, key?: string): void {
    if (scope.type === 'platform') {
      this.platformEpoch += 1;
      this.platform = undefined;
      this.clusters.clear();
      this.store.retryNow();
    } else {
      this.clusterEpochs.set(scope.clusterId, (this.clusterEpochs.get(scope.clusterId) ?? 0) + 1);
      this.clusters.delete(scope.clusterId);
    }
    this.metrics.invalidated(scope.type);
    const change: FlagChange = {
      key: key ?? '',
      scope: scope.type === 'platform' ? { type: 'platform' } : { type: 'cluster', clusterId: scope.clusterId },
    };
    const keys = key === undefined ? [...this.flags.keys()] : [key];
    for (const k of keys) this.listeners.notify({ ...change, key: k });
  }

  private invalidateAll(): void {
    this.platformEpoch += 1;
    this.platform = undefined;
    this.clusters.clear();
    this.metrics.invalidated('all');
    for (const key of this.flags.keys()) this.listeners.notify({ key, scope: { type: 'all' } });
  }

  private onEvent(event: FlagEvent): void {
    if (this.closed) return;
    this.invalidate(event.scope, this.flags.has(event.flag) ? event.flag : undefined);
  }

  /** Tells the caller when an effective value of `key` it has read may have changed. */
  onChange(key: string, listener: (change: FlagChange) => void): () => void {
    return this.listeners.add(key, listener);
  }

  /** Stops listening and releases the OFREP provider; the bus is the caller's to close. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.listeners.clear();
    await this.remote?.close();
  }
}

export function createFlagsClient(options: FlagsClientOptions): FlagsClient {
  return new FlagsClient(options);
}
