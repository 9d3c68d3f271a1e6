import { Code, ConnectError } from '@connectrpc/connect';
import { codeLabel, RETRY_AT_HEADER, useNodeTextEncoding, TUNNEL_PING_INTERVAL_MS } from '@gsp/tunnel-proto';
import type { ErrorLogger } from '@gsp/service-kit';
import type { AgentEvents } from './events.js';
import type { KubeTarget } from './kube.js';
import { AgentTunnel } from './tunnel/tunnel.js';
import type { DialOptions } from './tunnel/tunnel.js';

export interface AgentOptions {
  proxyTunnelUrl: string;
  /** Extra CA certificates (PEM) trusted for an https: tunnel URL; the system's stay trusted. */
  proxyCa?: string | undefined;
  clusterId: string;
  agentToken: string;
  kube: KubeTarget;
  backoffInitialMs: number;
  backoffMaxMs: number;
  backoffResetMs: number;
  /** Ping the proxy this often; no answer within half of it ends the connection. Default 30 s. */
  pingIntervalMs?: number;
  /** Give up a dial (TCP and TLS) that has not completed within this long, and a tunnel the proxy has not accepted within twice this long. Default 10 s. */
  connectTimeoutMs?: number;
  /** While it holds as many replicas as announced, the agent checks again this often. Default 1 s. */
  syncIntervalMs?: number;
  /** On stop, a tunnel whose requests have not finished within this long is closed anyway. Default 10 s. */
  drainGraceMs?: number;
  events?: AgentEvents;
  log: ErrorLogger;
}

/**
 * A refusal may say when the switch that refused the tunnel expires (RETRY_AT_HEADER): the agent
 * comes back then, spread over RETRY_AT_SPREAD_MS so that every agent of the platform does not dial
 * at the same millisecond.
 */
const RETRY_AT_SPREAD_MS = 250;
/** A `gsp-retry-at` further away than this is ignored (the API refuses expiries beyond 30 days). */
const RETRY_AT_MAX_AHEAD_MS = 31 * 24 * 3600_000;

/** How long until the moment a refusal names, if it names one that makes sense; never negative. */
export function retryAtDelay(err: ConnectError, now: number, random: () => number = Math.random): number | undefined {
  const raw = err.metadata.get(RETRY_AT_HEADER);
  if (raw === null) return undefined;
  const at = Date.parse(raw);
  if (!Number.isFinite(at) || at - now > RETRY_AT_MAX_AHEAD_MS) return undefined;
  return Math.max(0, at - now) + Math.floor(random() * RETRY_AT_SPREAD_MS);
}

/** Full jitter: a uniformly random wait up to the capped exponential step. */
export function backoffDelay(
  attempt: number,
  initialMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  return Math.floor(random() * Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30)));
}

export interface TunnelAgent {
  /** At least one tunnel is up (a draining replica's included: it still serves). */
  readonly connected: boolean;
  /** The replicas the agent holds a serving tunnel to (not draining), sorted. */
  readonly replicas: readonly string[];
  /** Tunnels open now, draining ones included. */
  readonly tunnels: number;
  /** How many distinct replicas the agent aims to hold: the latest announced count, 1 for a proxy that announces none. */
  readonly target: number;
  /** Connection attempts so far (for tests and metrics). */
  readonly attempts: number;
  /** Why the last attempt or connection ended, e.g. the proxy's `unavailable` with the policy message. */
  readonly lastError: ConnectError | undefined;
  /**
   * Stops dialling, sends `drain` on every tunnel and closes each once its requests are done, or
   * after `graceMs` (AGENT_DRAIN_GRACE by default; 0: at once). A shorter grace asked while a stop
   * runs cuts it short.
   */
  stop(graceMs?: number): Promise<void>;
}

/** One tunnel the agent holds, from the proxy's hello to its end. */
interface Held {
  tunnel: AgentTunnel;
  replicaId: string;
  connectedAt: number;
  /** The replica said it is shutting down: not counted, kept until the proxy closes it. */
  draining: boolean;
  /** How many replicas serve, as this replica last announced (0: it does not say). */
  announced: number;
}

/**
 * After sending `drain`, an idle tunnel stays open this long before the agent closes it: a request
 * the proxy opened before it read the drain may still be on its way (the protocol has no answer to
 * a drain).
 */
const DRAIN_SETTLE_MS = 250;

const REPLICAS_CHANGED = 'the number of proxy replicas to hold a tunnel to changed';

/**
 * Keeps one tunnel to each distinct proxy replica, dialling the one (load-balanced) tunnel URL
 * until it holds as many as the replicas announce (Konnectivity's agent): a dial that reaches a
 * replica already held is refused by it (`already_exists`) and dialled again within the sync
 * interval; failures back off with full jitter.
 */
export function startAgent(opts: AgentOptions): TunnelAgent {
  useNodeTextEncoding();
  const events = opts.events ?? {};
  const syncIntervalMs = opts.syncIntervalMs ?? 1000;
  const drainGraceMs = opts.drainGraceMs ?? 10_000;
  const dial: DialOptions = {
    proxyTunnelUrl: opts.proxyTunnelUrl,
    proxyCa: opts.proxyCa,
    pingIntervalMs: opts.pingIntervalMs ?? TUNNEL_PING_INTERVAL_MS,
    connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
  };
  const stopping = new AbortController();
  /** The tunnels held, by replica id (an old proxy's, which names none, under ''). */
  const held = new Map<string, Held>();
  /** The target while no tunnel is held: the last one computed. */
  let lastTarget = 1;
  let attempts = 0;
  let lastError: ConnectError | undefined;
  /** Consecutive failures, for the backoff. */
  let attempt = 0;
  /** No dial before this moment (a backoff, or a switch's `gsp-retry-at`). */
  let notBefore = 0;
  /** Cuts the loop's current wait short: a tunnel ended or drains, or the count grew. */
  let wake: () => void = () => undefined;
  /** The dial under way, closed if the agent stops before the proxy accepts it. */
  let dialling: AgentTunnel | undefined;

  /**
   * The highest count among the serving replicas held, each as it last announced: a replica that has
   * not yet counted a newcomer does not pull the target down. 0 (an old proxy): keep one tunnel.
   */
  const target = (): number => {
    let highest = 0;
    for (const h of held.values()) if (!h.draining) highest = Math.max(highest, h.announced);
    if (held.size > 0) lastTarget = Math.max(1, highest);
    return lastTarget;
  };
  const serving = (): number => [...held.values()].filter((h) => !h.draining).length;

  /** A tunnel has stayed up for AGENT_BACKOFF_RESET: the failures before it are forgiven. */
  function settleBackoff(lastedSince?: number): void {
    const now = Date.now();
    const stable = (since: number) => now - since >= opts.backoffResetMs;
    if ((lastedSince !== undefined && stable(lastedSince)) || [...held.values()].some((h) => stable(h.connectedAt)))
      attempt = 0;
  }

  /**
   * Schedules the next dial after a failure or a lost tunnel, as `err` (if any) allows. Tunnels
   * lost while a wait already runs (a switch closes them all at once) add no step of their own.
   */
  function backOff(err: ConnectError | undefined): void {
    if (notBefore > Date.now()) return;
    let wait =
      err !== undefined && (err.code === Code.Unauthenticated || err.code === Code.PermissionDenied)
        ? opts.backoffMaxMs
        : backoffDelay(attempt, opts.backoffInitialMs, opts.backoffMaxMs);
    // Refused by a switch that expires: back no later than that moment.
    const retryAt = err === undefined ? undefined : retryAtDelay(err, Date.now());
    if (retryAt !== undefined && retryAt < wait) wait = retryAt;
    attempt++;
    notBefore = Date.now() + wait;
  }

  function logFailure(e: ConnectError): void {
    if (e.code === Code.Unauthenticated || e.code === Code.PermissionDenied)
      opts.log.error(
        { code: Code[e.code], reason: e.rawMessage },
        'the proxy rejected the agent token; check AGENT_TOKEN and CLUSTER_ID (retrying at the backoff ceiling)',
      );
    else opts.log.warn({ code: Code[e.code], reason: e.rawMessage }, 'tunnel unavailable; reconnecting with backoff');
  }

  function announce(entry: Held, count: number): void {
    const before = target();
    entry.announced = count;
    if (target() === before) return;
    opts.log.info({ replicaId: entry.replicaId, replicas: target() }, REPLICAS_CHANGED);
    if (target() > before) wake();
  }

  /**
   * A held tunnel ended: the replica no longer counts, and the next dial waits for the backoff
   * (not after a drained one: its end was announced, and its replacement dialled already).
   */
  function ended(entry: Held, err: unknown): void {
    if (held.get(entry.replicaId) === entry) held.delete(entry.replicaId);
    if (stopping.signal.aborted) return;
    if (entry.draining && err === undefined) {
      opts.log.info({ replicaId: entry.replicaId }, 'the draining proxy replica closed its tunnel');
      events.ended?.('ok');
      return;
    }
    const replica = { replicaId: entry.replicaId };
    let e: ConnectError | undefined;
    if (err === undefined) {
      opts.log.warn(replica, 'tunnel closed by the proxy; reconnecting');
      events.ended?.('ok');
    } else {
      e = ConnectError.from(err);
      events.ended?.(codeLabel(Code[e.code]));
      lastError = e;
      logFailure(e);
    }
    settleBackoff(entry.connectedAt);
    backOff(e);
    wake();
  }

  /** One dial: `unique` (now held), `duplicate` (a replica already held), or `failed`. */
  async function dialOnce(): Promise<'unique' | 'duplicate' | 'failed'> {
    attempts++;
    const entry: Held = {
      tunnel: undefined as unknown as AgentTunnel,
      replicaId: '',
      connectedAt: 0,
      draining: false,
      announced: 0,
    };
    entry.tunnel = new AgentTunnel({
      dial,
      clusterId: opts.clusterId,
      agentToken: opts.agentToken,
      held: held.keys(),
      kube: opts.kube,
      events,
      onReplicas: (count) => announce(entry, count),
      onDrain() {
        if (entry.draining) return;
        entry.draining = true;
        opts.log.info({ replicaId: entry.replicaId }, 'the proxy replica is draining; dialling for another');
        wake();
      },
    });
    dialling = entry.tunnel;
    const hello = await entry.tunnel.hello;
    dialling = undefined;
    if (hello !== undefined && stopping.signal.aborted) {
      await entry.tunnel.close();
      return 'failed';
    }
    if (hello !== undefined) {
      entry.replicaId = hello.replicaId;
      entry.connectedAt = Date.now();
      // The replica refuses a tunnel it is told the agent holds; one that did not (it cannot read the
      // list) replaced the old tunnel with this one, and closes the old.
      if (held.has(hello.replicaId)) opts.log.warn({ replicaId: hello.replicaId }, 'a second tunnel to one replica');
      const before = target();
      entry.announced = hello.replicaCount;
      held.set(hello.replicaId, entry);
      if (target() !== before) opts.log.info({ replicaId: entry.replicaId, replicas: target() }, REPLICAS_CHANGED);
      entry.tunnel.done.then(
        () => ended(entry, undefined),
        (err: unknown) => ended(entry, err),
      );
      opts.log.info(
        { clusterId: hello.clusterId, replicaId: hello.replicaId, tunnels: serving(), replicas: target() },
        'tunnel connected',
      );
      return 'unique';
    }
    let e: ConnectError | undefined;
    try {
      await entry.tunnel.done;
      opts.log.warn({}, 'tunnel closed by the proxy before it was accepted; reconnecting');
      events.ended?.('ok');
    } catch (err) {
      if (stopping.signal.aborted) return 'failed';
      e = ConnectError.from(err);
      events.ended?.(codeLabel(Code[e.code]));
      if (e.code === Code.AlreadyExists) return 'duplicate';
      lastError = e;
      logFailure(e);
    }
    settleBackoff();
    backOff(e);
    return 'failed';
  }

  /** Waits `ms`, or less if woken or stopped. */
  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stopping.signal.removeEventListener('abort', done);
        wake = () => undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      stopping.signal.addEventListener('abort', done, { once: true });
      wake = done;
    });
  }

  const loop = (async () => {
    while (!stopping.signal.aborted) {
      if (serving() >= target()) {
        await pause(syncIntervalMs);
        continue;
      }
      const wait = notBefore - Date.now();
      if (wait > 0) {
        await pause(wait);
        continue;
      }
      const outcome = await dialOnce();
      // A new replica: the next at once while below the count. A duplicate: again soon, at a
      // random moment within the sync interval, so the balancer spreads the dials.
      if (outcome === 'duplicate') await pause(Math.floor(Math.random() * syncIntervalMs));
    }
  })();

  /** Ends the drain's grace: at its deadline, or sooner when a shorter stop is asked. */
  let graceOver: () => void = () => undefined;
  const grace = new Promise<void>((resolve) => (graceOver = resolve));
  let graceTimer: NodeJS.Timeout | undefined;
  let graceEnds = Infinity;

  /** Drains one tunnel: closed once its requests are done, at the latest when the grace is over. */
  async function drainTunnel(entry: Held): Promise<void> {
    entry.tunnel.drain();
    const settled = entry.tunnel.done.catch(() => undefined);
    const idle = (async () => {
      await new Promise((resolve) => setTimeout(resolve, DRAIN_SETTLE_MS));
      await entry.tunnel.whenIdle();
    })();
    await Promise.race([idle, grace, settled]);
    const abandoned = entry.tunnel.inFlight;
    if (abandoned > 0)
      opts.log.warn({ replicaId: entry.replicaId, abandoned }, 'requests still in flight after AGENT_DRAIN_GRACE');
    await entry.tunnel.close();
  }

  let stopped: Promise<void> | undefined;

  return {
    get connected() {
      return held.size > 0;
    },
    get replicas() {
      return [...held.values()]
        .filter((h) => !h.draining)
        .map((h) => h.replicaId)
        .sort();
    },
    get tunnels() {
      return held.size;
    },
    get target() {
      return target();
    },
    get attempts() {
      return attempts;
    },
    get lastError() {
      return lastError;
    },
    stop(graceMs = drainGraceMs) {
      if (Date.now() + graceMs < graceEnds) {
        graceEnds = Date.now() + graceMs;
        clearTimeout(graceTimer);
        graceTimer = setTimeout(graceOver, graceMs);
      }
      stopped ??= (async () => {
        stopping.abort();
        dialling?.abort();
        await loop;
        const entries = [...held.values()];
        if (entries.length > 0) opts.log.info({ tunnels: entries.length }, 'draining the tunnels');
        await Promise.all(entries.map(drainTunnel));
        clearTimeout(graceTimer);
      })();
      return stopped;
    },
  };
}
