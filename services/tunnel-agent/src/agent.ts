import { setTimeout as sleep } from 'node:timers/promises';
import { Code, ConnectError } from '@connectrpc/connect';
import { codeLabel, RETRY_AT_HEADER, useNodeTextEncoding, TUNNEL_PING_INTERVAL_MS } from '@gsp/tunnel-proto';
import type { KubeTarget } from './kube.js';
import { runTunnel, tunnelClient } from './tunnel/tunnel.js';

export interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What the agent reports as it works, for metrics; every hook is optional. */
export interface AgentEvents {
  /** The API server answered a request from the tunnel with `status` (101 for an upgrade). */
  response?(status: number): void;
  /** A request from the tunnel got no answer: the API server could not be reached, or refused the request. */
  failure?(): void;
  /** A tunnel connection (or an attempt) ended: `ok` when the proxy closed it, else the Connect code. */
  ended?(code: string): void;
  /** The proxy asked to pause a stream: its kubectl client reads slower than the API server answers. */
  pause?(): void;
}

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
  events?: AgentEvents;
  log: Logger;
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
  readonly connected: boolean;
  /** Connection attempts so far (for tests and metrics). */
  readonly attempts: number;
  /** Why the last attempt or connection ended, e.g. the proxy's `unavailable` with the policy message. */
  readonly lastError: ConnectError | undefined;
  stop(): Promise<void>;
}

/** Dials the proxy and serves its requests, reconnecting forever with full-jitter backoff. */
export function startAgent(opts: AgentOptions): TunnelAgent {
  useNodeTextEncoding();
  const events = opts.events ?? {};
  const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  const client = tunnelClient({
    proxyTunnelUrl: opts.proxyTunnelUrl,
    proxyCa: opts.proxyCa,
    pingIntervalMs: opts.pingIntervalMs ?? TUNNEL_PING_INTERVAL_MS,
    connectTimeoutMs,
  });
  const stopping = new AbortController();
  let connected = false;
  let attempts = 0;
  let lastError: ConnectError | undefined;

  /** One connection; resolves with when it came up (undefined: never), once the proxy closed it. */
  async function runOnce(): Promise<number | undefined> {
    let connectedAt: number | undefined;
    // A proxy that takes the connection but never accepts the tunnel (stalled, or a balancer holding
    // it) is given up like a stalled dial, not only at the first missed ping (1.5 ping intervals).
    // Twice the dial's bound, so a dial that stalls is always reported as the dial.
    const handshakeMs = 2 * connectTimeoutMs;
    const handshake = new AbortController();
    const timer = setTimeout(
      () =>
        handshake.abort(
          new ConnectError(`the proxy did not accept the tunnel within ${handshakeMs} ms`, Code.DeadlineExceeded),
        ),
      handshakeMs,
    );
    try {
      await runTunnel({
        client,
        clusterId: opts.clusterId,
        agentToken: opts.agentToken,
        signal: AbortSignal.any([stopping.signal, handshake.signal]),
        kube: opts.kube,
        events,
        onHello(clusterId) {
          clearTimeout(timer);
          connected = true;
          connectedAt = Date.now();
          opts.log.info({ clusterId }, 'tunnel connected');
        },
      });
      return connectedAt;
    } finally {
      clearTimeout(timer);
      connected = false;
    }
  }

  const loop = (async () => {
    let attempt = 0;
    while (!stopping.signal.aborted) {
      attempts++;
      let wait: number;
      /** Why this attempt or connection ended, when the proxy said so. */
      let refusal: ConnectError | undefined;
      const before = Date.now();
      let connectedAt: number | undefined;
      try {
        connectedAt = await runOnce();
        opts.log.warn({}, 'tunnel closed by the proxy; reconnecting');
        events.ended?.('ok');
        wait = -1;
      } catch (err) {
        if (stopping.signal.aborted) break;
        const e = ConnectError.from(err);
        events.ended?.(codeLabel(Code[e.code]));
        lastError = e;
        refusal = e;
        if (e.code === Code.Unauthenticated || e.code === Code.PermissionDenied) {
          opts.log.error(
            { code: Code[e.code], reason: e.rawMessage },
            'the proxy rejected the agent token; check AGENT_TOKEN and CLUSTER_ID (retrying at the backoff ceiling)',
          );
          wait = opts.backoffMaxMs;
        } else {
          opts.log.warn({ code: Code[e.code], reason: e.rawMessage }, 'tunnel unavailable; reconnecting with backoff');
          wait = -1;
        }
      }
      if (Date.now() - (connectedAt ?? before) >= opts.backoffResetMs && connectedAt !== undefined) attempt = 0;
      if (wait < 0) wait = backoffDelay(attempt, opts.backoffInitialMs, opts.backoffMaxMs);
      // Refused by a switch that expires: back no later than that moment.
      const retryAt = refusal === undefined ? undefined : retryAtDelay(refusal, Date.now());
      if (retryAt !== undefined && retryAt < wait) wait = retryAt;
      attempt++;
      try {
        await sleep(wait, undefined, { signal: stopping.signal });
      } catch {
        break;
      }
    }
  })();

  return {
    get connected() {
      return connected;
    },
    get attempts() {
      return attempts;
    },
    get lastError() {
      return lastError;
    },
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}
