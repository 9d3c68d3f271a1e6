import { Code, ConnectError } from '@connectrpc/connect';
import { codeLabel, useNodeTextEncoding, TUNNEL_PING_INTERVAL_MS } from '@gsp/tunnel-proto';
import type { Hello } from '@gsp/tunnel-proto';
import type { ErrorLogger } from '@gsp/service-kit';
import { AgentDrain } from './drain.js';
import type { AgentEvents } from '../events.js';
import { HeldTunnels } from './held.js';
import type { Held } from './held.js';
import type { KubeTarget } from '../kube.js';
import { Redial, rejectedToken } from './redial.js';
import { AgentTunnel } from '../tunnel/tunnel.js';
import type { DialOptions } from '../tunnel/tunnel.js';

export { backoffDelay, retryAtDelay } from './redial.js';

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
  /**
   * Give up a dial (TCP and TLS) that has not completed within this long, and a tunnel the proxy has not accepted
   * within twice this long. Default 10 s.
   */
  connectTimeoutMs?: number;
  /** While it holds as many replicas as announced, the agent checks again this often. Default 1 s. */
  syncIntervalMs?: number;
  /** On stop, a tunnel whose requests have not finished within this long is closed anyway. Default 10 s. */
  drainGraceMs?: number;
  events?: AgentEvents;
  log: ErrorLogger;
}

export interface TunnelAgent {
  /** At least one tunnel is up (a draining replica's included: it still serves). */
  readonly connected: boolean;
  /** The replicas the agent holds a serving tunnel to (not draining), sorted. */
  readonly replicas: readonly string[];
  /** Tunnels open now, draining ones included. */
  readonly tunnels: number;
  /**
   * How many distinct replicas the agent aims to hold: the latest announced count, 1 for a proxy that announces
   * none.
   */
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

/** What one dial came to: `unique` (now held), `duplicate` (a replica already held), or `failed`. */
type DialOutcome = 'unique' | 'duplicate' | 'failed';

/**
 * Keeps one tunnel to each distinct proxy replica, dialling the one (load-balanced) tunnel URL
 * until it holds as many as the replicas announce (Konnectivity's agent): a dial that reaches a
 * replica already held is refused by it (`already_exists`) and dialled again within the sync
 * interval; failures back off with full jitter.
 */
class Agent implements TunnelAgent {
  private readonly events: AgentEvents;
  private readonly syncIntervalMs: number;
  private readonly drainGraceMs: number;
  private readonly dial: DialOptions;
  private readonly stopping = new AbortController();
  private readonly held: HeldTunnels;
  private readonly redial: Redial;
  private readonly drainer: AgentDrain;
  private dials = 0;
  private failure: ConnectError | undefined;
  /** Cuts the loop's current wait short: a tunnel ended or drains, or the count grew. */
  private wake: () => void = () => undefined;
  /** The dial under way, closed if the agent stops before the proxy accepts it. */
  private dialling: AgentTunnel | undefined;
  private readonly loop: Promise<void>;
  private stopped: Promise<void> | undefined;

  constructor(private readonly opts: AgentOptions) {
    this.events = opts.events ?? {};
    this.syncIntervalMs = opts.syncIntervalMs ?? 1000;
    this.drainGraceMs = opts.drainGraceMs ?? 10_000;
    this.dial = {
      proxyTunnelUrl: opts.proxyTunnelUrl,
      proxyCa: opts.proxyCa,
      pingIntervalMs: opts.pingIntervalMs ?? TUNNEL_PING_INTERVAL_MS,
      connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
    };
    this.held = new HeldTunnels(opts.log);
    this.redial = new Redial(opts);
    this.drainer = new AgentDrain(opts.log);
    this.loop = this.keepDialling();
  }

  get connected(): boolean {
    return this.held.size > 0;
  }
  get replicas(): readonly string[] {
    return this.held.replicas();
  }
  get tunnels(): number {
    return this.held.size;
  }
  get target(): number {
    return this.held.target();
  }
  get attempts(): number {
    return this.dials;
  }
  get lastError(): ConnectError | undefined {
    return this.failure;
  }

  stop(graceMs = this.drainGraceMs): Promise<void> {
    this.drainer.shorten(graceMs);
    this.stopped ??= (async () => {
      this.stopping.abort();
      this.dialling?.abort();
      await this.drainer.within(this.loop);
      await this.drainer.all(this.held.all());
    })();
    return this.stopped;
  }

  private async keepDialling(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      if (this.held.serving() >= this.held.target()) {
        await this.pause(this.syncIntervalMs);
        continue;
      }
      const wait = this.redial.wait;
      if (wait > 0) {
        await this.pause(wait);
        continue;
      }
      const outcome = await this.dialOnce();
      // A new replica: the next at once while below the count. A duplicate: again soon, at a
      // random moment within the sync interval, so the balancer spreads the dials.
      if (outcome === 'duplicate') await this.pause(Math.floor(Math.random() * this.syncIntervalMs));
    }
  }

  /** One dial, until the proxy accepts the tunnel or ends it. */
  private async dialOnce(): Promise<DialOutcome> {
    this.dials++;
    const entry: Held = {
      tunnel: undefined as unknown as AgentTunnel,
      replicaId: '',
      connectedAt: 0,
      draining: false,
      announced: 0,
    };
    entry.tunnel = new AgentTunnel({
      dial: this.dial,
      clusterId: this.opts.clusterId,
      agentToken: this.opts.agentToken,
      held: this.held.ids(),
      kube: this.opts.kube,
      events: this.events,
      onReplicas: (count) => {
        if (this.held.announce(entry, count)) this.wake();
      },
      onDrain: () => this.draining(entry),
    });
    this.dialling = entry.tunnel;
    const hello = await entry.tunnel.hello;
    this.dialling = undefined;
    if (hello !== undefined && this.stopping.signal.aborted) {
      await entry.tunnel.close();
      return 'failed';
    }
    if (hello !== undefined) return this.accepted(entry, hello);
    return this.refused(entry);
  }

  /** The proxy accepted the tunnel: it is held until it ends. */
  private accepted(entry: Held, hello: Hello): DialOutcome {
    this.held.add(entry, hello.replicaId, hello.replicaCount);
    entry.tunnel.done.then(
      () => this.ended(entry, undefined),
      (err: unknown) => this.ended(entry, err),
    );
    const { held } = this;
    this.opts.log.info(
      { clusterId: hello.clusterId, replicaId: hello.replicaId, tunnels: held.serving(), replicas: held.target() },
      'tunnel connected',
    );
    return 'unique';
  }

  /** The tunnel ended before the proxy accepted it: a duplicate, or a failure to back off from. */
  private async refused(entry: Held): Promise<DialOutcome> {
    let e: ConnectError | undefined;
    try {
      await entry.tunnel.done;
      this.opts.log.warn({}, 'tunnel closed by the proxy before it was accepted; reconnecting');
      this.events.ended?.('ok');
    } catch (err) {
      if (this.stopping.signal.aborted) return 'failed';
      e = ConnectError.from(err);
      this.events.ended?.(codeLabel(Code[e.code]));
      if (e.code === Code.AlreadyExists) return 'duplicate';
      this.failed(e);
    }
    this.redial.settle(this.held.all());
    this.redial.backOff(e);
    return 'failed';
  }

  /** The replica said it is shutting down: it no longer counts, and the agent dials for another. */
  private draining(entry: Held): void {
    if (entry.draining) return;
    entry.draining = true;
    this.opts.log.info({ replicaId: entry.replicaId }, 'the proxy replica is draining; dialling for another');
    this.wake();
  }

  /**
   * A held tunnel ended: the replica no longer counts, and the next dial waits for the backoff
   * (not after a drained one: its end was announced, and its replacement dialled already).
   */
  private ended(entry: Held, err: unknown): void {
    this.held.remove(entry);
    if (this.stopping.signal.aborted) return;
    const { log } = this.opts;
    if (entry.draining && err === undefined) {
      log.info({ replicaId: entry.replicaId }, 'the draining proxy replica closed its tunnel');
      this.events.ended?.('ok');
      return;
    }
    let e: ConnectError | undefined;
    if (err === undefined) {
      log.warn({ replicaId: entry.replicaId }, 'tunnel closed by the proxy; reconnecting');
      this.events.ended?.('ok');
    } else {
      e = ConnectError.from(err);
      this.events.ended?.(codeLabel(Code[e.code]));
      this.failed(e);
    }
    this.redial.settle(this.held.all(), entry.connectedAt);
    this.redial.backOff(e);
    this.wake();
  }

  /** Records and logs why a dial or a tunnel failed. */
  private failed(e: ConnectError): void {
    this.failure = e;
    const fields = { code: Code[e.code], reason: e.rawMessage };
    if (rejectedToken(e))
      this.opts.log.error(
        fields,
        'the proxy rejected the agent token; check AGENT_TOKEN and CLUSTER_ID (retrying at the backoff ceiling)',
      );
    else this.opts.log.warn(fields, 'tunnel unavailable; reconnecting with backoff');
  }

  /** Waits `ms`, or less if woken or stopped. */
  private pause(ms: number): Promise<void> {
    const { signal } = this.stopping;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wake = () => undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
  }
}

/** Starts an agent that keeps its tunnels until stopped. */
export function startAgent(opts: AgentOptions): TunnelAgent {
  useNodeTextEncoding();
  return new Agent(opts);
}
