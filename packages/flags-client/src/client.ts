import type pg from 'pg';
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import { FLAGS, CLI_ACCESS_ENABLED } from './registry.js';
import type { FlagDefinition } from './registry.js';
import { readEnvPins, resolveFlag } from './evaluate.js';
import type { FlagSource } from './evaluate.js';
import { FLAG_UPDATED_EVENT, isFlagEvent, readFlagRows, switchRecordOf } from '@gsp/platform-contract';
import type { FlagEvent, FlagEventScope, SwitchRecord } from '@gsp/platform-contract';
import { processLocalBus, RedisEventBus } from './bus.js';
import type { EventBus } from './bus.js';
import { FlagsClientError } from './errors.js';
import { createOfrepResolver } from './ofrep.js';
import type { OfrepResolver, OfrepResolverOptions } from './ofrep.js';

/** Where an answer came from: the evaluation order's step, or the remote OFREP provider. */
export type EvaluationSource = FlagSource | 'provider';

export interface Evaluation {
  value: boolean;
  source: EvaluationSource;
  envPinned: boolean;
  /** True when the store could not be read and this is the last value seen (or the default). */
  stale: boolean;
  /** The stored value that decided (source `cluster` or `platform`): who set it, when, why, until when. */
  record?: SwitchRecord | undefined;
}

/** An evaluation with the stored values that produced it. */
export interface DetailedEvaluation extends Evaluation {
  source: FlagSource;
  platformValue: boolean | undefined;
  clusterValue: boolean | undefined;
  platformRecord: SwitchRecord | undefined;
  clusterRecord: SwitchRecord | undefined;
}

export interface EvaluationContext {
  org?: string | undefined;
  clusterId?: string | undefined;
}

export interface FlagChange {
  key: string;
  /** The scope whose values may have changed; `all` after a reconnect, when events may be lost. */
  scope: { type: 'platform' } | { type: 'cluster'; clusterId: string } | { type: 'all' };
}

export interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface FlagsClientOptions {
  /** Read-only use. Give it `connectionTimeoutMillis` so an unreachable store fails fast. */
  pool: pg.Pool;
  /** Redis for cross-process invalidation; without it, only writes in this process invalidate. */
  redisUrl?: string | undefined;
  /** Prefix of the Redis channel name. */
  redisPrefix?: string | undefined;
  /** Base of the Redis connection names (CLIENT LIST), to tell processes apart. */
  redisConnectionName?: string | undefined;
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
  /** A transport of one's own (overrides `redisUrl`). */
  bus?: EventBus | undefined;
  /**
   * `SERVICE_FLAGS_PROVIDER=ofrep`: flags not in the registry (product and rollout flags) are
   * resolved by this OFREP service. Registry flags, the kill switch among them, never are.
   */
  ofrep?: OfrepResolverOptions | undefined;
}

interface ScopeEntry {
  /** Boolean values only, by flag key. */
  values: ReadonlyMap<string, SwitchRecord>;
  expiresAt: number;
  /** Set when the entry was kept past its life because the store could not be read. */
  stale: boolean;
}

const silent: Logger = { info() {}, warn() {} };

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

export class FlagsClient {
  private readonly pool: pg.Pool;
  private readonly ttlMs: number;
  private readonly storeTimeoutMs: number;
  private readonly retryAfterMs: number;
  private readonly log: Logger;
  private readonly bus: EventBus;
  private readonly ownsBus: boolean;
  private readonly unsubscribe: () => void;
  private readonly flags = new Map<string, FlagDefinition>();
  /** Env pins by flag key, and precomputed answers: `evaluate` never reads the store for them. */
  private readonly pins = new Map<string, boolean>();
  private readonly pinned = new Map<string, Evaluation>();

  private platform: ScopeEntry | undefined;
  private readonly clusters = new Map<string, ScopeEntry>();
  /** Bumped on invalidation, so a load that started before it does not cache what it read. */
  private platformEpoch = 0;
  private readonly clusterEpochs = new Map<string, number>();
  private readonly inflight = new Map<string, Promise<void>>();
  private storeDownUntil = 0;
  private outage = false;
  private closed = false;
  private readonly listeners = new Map<string, Set<(change: FlagChange) => void>>();
  private readonly remote: OfrepResolver | undefined;

  private readonly staleServed: Counter | undefined;
  private readonly storeUp: Gauge | undefined;
  private readonly invalidations: Counter | undefined;

  constructor(options: FlagsClientOptions) {
    if (!options || typeof options.pool?.query !== 'function')
      throw new FlagsClientError('ERR_FLAGS_OPTIONS', 'options.pool must be a pg.Pool');
    this.pool = options.pool;
    this.ttlMs = positive('options.ttlMs', options.ttlMs, 10_000);
    this.storeTimeoutMs = positive('options.storeTimeoutMs', options.storeTimeoutMs, 2000);
    this.retryAfterMs = positive('options.retryAfterMs', options.retryAfterMs, 1000);
    this.log = options.logger ?? silent;
    const pins = options.pins ?? readEnvPins(options.env ?? process.env);
    for (const flag of FLAGS) {
      this.flags.set(flag.key, flag);
      const pin = pins.get(flag.key);
      if (pin !== undefined) {
        this.pins.set(flag.key, pin);
        this.pinned.set(flag.key, { value: pin, source: 'env', envPinned: true, stale: false });
      }
    }

    this.remote = options.ofrep ? createOfrepResolver({ logger: this.log, ...options.ofrep }) : undefined;

    if (options.bus) {
      this.bus = options.bus;
      this.ownsBus = false;
    } else if (options.redisUrl) {
      this.bus = new RedisEventBus({
        url: options.redisUrl,
        prefix: options.redisPrefix,
        connectionName: options.redisConnectionName,
        onError: (err) =>
          this.log.warn(
            { err: { message: err.message } },
            'flag invalidation channel error; caches expire by TTL meanwhile',
          ),
      });
      this.ownsBus = true;
    } else {
      this.bus = processLocalBus();
      this.ownsBus = false;
    }
    this.unsubscribe = this.bus.subscribe(FLAG_UPDATED_EVENT, {
      event: (e) => {
        if (isFlagEvent(e)) this.onEvent(e);
      },
      resync: () => this.invalidateAll(),
    });

    if (options.registry) {
      const registers = [options.registry];
      this.staleServed = new Counter({
        name: 'gsp_flags_stale_evaluations_total',
        help: 'Evaluations answered with a stale value because the flag store could not be read',
        registers,
      });
      this.storeUp = new Gauge({
        name: 'gsp_flags_store_up',
        help: '1 while the flag store answers, 0 during an outage',
        registers,
      });
      this.invalidations = new Counter({
        name: 'gsp_flags_invalidations_total',
        help: 'Cache invalidations by scope',
        labelNames: ['scope'],
        registers,
      });
      this.storeUp.set(1);
    }
  }

  /**
   * The transport this client listens on: the one given as `bus`, or one of its own. The proxy
   * subscribes to access events on it (one Redis subscriber per process).
   */
  get eventBus(): EventBus {
    return this.bus;
  }

  /** Waits until cross-process invalidation is live (Redis subscribed). */
  async ready(): Promise<void> {
    if (this.bus instanceof RedisEventBus) await this.bus.ready();
  }

  evaluate(key: string, context: EvaluationContext = {}): Promise<Evaluation> {
    const pin = this.closed ? undefined : this.pinned.get(key);
    if (pin) return Promise.resolve(pin);
    if (this.remote && !this.closed && !this.flags.has(key)) return this.evaluateRemote(this.remote, key, context);
    return this.evaluateWith(key, context, false);
  }

  private async evaluateRemote(remote: OfrepResolver, key: string, context: EvaluationContext): Promise<Evaluation> {
    const resolution = await remote.resolveBoolean(key, { org: context.org, clusterId: context.clusterId }, false);
    if (!resolution)
      throw new FlagsClientError(
        'ERR_FLAG_UNKNOWN',
        `unknown flag ${JSON.stringify(key)} (neither in the registry nor known to the OFREP provider)`,
      );
    // A provider failure serves the caller's default (false) and says so, like a stale store read.
    return { value: resolution.value, source: 'provider', envPinned: false, stale: resolution.errorCode !== undefined };
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
    if (stale) this.staleServed?.inc();
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
    if (now >= this.storeDownUntil) await this.load(clusterId);
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
    let timer: NodeJS.Timeout | undefined;
    try {
      const result = await Promise.race([
        readFlagRows(this.pool, clusterId),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`flag store did not answer within ${this.storeTimeoutMs} ms`)),
            this.storeTimeoutMs,
          );
        }),
      ]);
      const platformValues = new Map<string, SwitchRecord>();
      const clusterValues = new Map<string, SwitchRecord>();
      for (const row of result) {
        const record = switchRecordOf(row);
        if (record !== undefined) (row.cluster_id === null ? platformValues : clusterValues).set(row.flag_key, record);
      }
      this.storeReachable();
      const expiresAt = Date.now() + this.ttlMs;
      // An invalidation that arrived while the query ran wins: do not cache what may predate it.
      if (
        this.platformEpoch !== platformEpoch ||
        (clusterId !== undefined && (this.clusterEpochs.get(clusterId) ?? 0) !== clusterEpoch)
      ) {
        this.platform = { values: platformValues, expiresAt: 0, stale: false };
        if (clusterId !== undefined)
          this.clusters.set(clusterId, { values: clusterValues, expiresAt: 0, stale: false });
        return;
      }
      this.platform = { values: platformValues, expiresAt, stale: false };
      if (clusterId !== undefined) this.clusters.set(clusterId, { values: clusterValues, expiresAt, stale: false });
    } catch (err) {
      this.storeUnreachable(err as Error, clusterId);
    } finally {
      clearTimeout(timer);
    }
  }

  private storeReachable(): void {
    this.storeDownUntil = 0;
    if (this.outage) {
      this.outage = false;
      this.storeUp?.set(1);
      this.log.info({}, 'flag store reachable again');
    }
  }

  private storeUnreachable(err: Error, clusterId: string | undefined): void {
    const now = Date.now();
    this.storeDownUntil = now + this.retryAfterMs;
    const retryAt = now + this.retryAfterMs;
    if (this.platform) this.platform = { ...this.platform, expiresAt: retryAt, stale: true };
    const cluster = clusterId === undefined ? undefined : this.clusters.get(clusterId);
    if (cluster && clusterId !== undefined)
      this.clusters.set(clusterId, { ...cluster, expiresAt: retryAt, stale: true });
    if (!this.outage) {
      this.outage = true;
      this.storeUp?.set(0);
      this.log.warn({ err: { message: err.message } }, 'flag store unreachable; serving last known values (stale)');
    }
  }

  /** Drops what a write to `scope` may have changed; also used by the writer for read-your-writes. */
  invalidate(scope: FlagEventScope, key?: string): void {
    if (scope.type === 'platform') {
      this.platformEpoch += 1;
      this.platform = undefined;
      this.clusters.clear();
      this.storeDownUntil = 0;
    } else {
      this.clusterEpochs.set(scope.clusterId, (this.clusterEpochs.get(scope.clusterId) ?? 0) + 1);
      this.clusters.delete(scope.clusterId);
    }
    this.invalidations?.inc({ scope: scope.type });
    const change: FlagChange = {
      key: key ?? '',
      scope: scope.type === 'platform' ? { type: 'platform' } : { type: 'cluster', clusterId: scope.clusterId },
    };
    const keys = key === undefined ? [...this.flags.keys()] : [key];
    for (const k of keys) this.notify({ ...change, key: k });
  }

  private invalidateAll(): void {
    this.platformEpoch += 1;
    this.platform = undefined;
    this.clusters.clear();
    this.invalidations?.inc({ scope: 'all' });
    for (const key of this.flags.keys()) this.notify({ key, scope: { type: 'all' } });
  }

  private onEvent(event: FlagEvent): void {
    if (this.closed) return;
    this.invalidate(event.scope, this.flags.has(event.flag) ? event.flag : undefined);
  }

  private notify(change: FlagChange): void {
    const set = this.listeners.get(change.key);
    if (!set) return;
    for (const listener of set) {
      try {
        listener(change);
      } catch (err) {
        this.log.warn({ err: { message: (err as Error).message } }, 'flag change listener failed');
      }
    }
  }

  /** Tells the caller when an effective value of `key` it has read may have changed. */
  onChange(key: string, listener: (change: FlagChange) => void): () => void {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.listeners.clear();
    await this.remote?.close();
    if (this.ownsBus) await this.bus.close();
  }
}

export function createFlagsClient(options: FlagsClientOptions): FlagsClient {
  return new FlagsClient(options);
}
