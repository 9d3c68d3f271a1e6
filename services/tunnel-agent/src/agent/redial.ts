import { Code } from '@connectrpc/connect';
import type { ConnectError } from '@connectrpc/connect';
import { RETRY_AT_HEADER } from '@gsp/tunnel-proto';
import type { Held } from './held.js';

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

/** A rejected agent token: retrying soon will not help. */
export function rejectedToken(err: ConnectError): boolean {
  return err.code === Code.Unauthenticated || err.code === Code.PermissionDenied;
}

export interface RedialOptions {
  backoffInitialMs: number;
  backoffMaxMs: number;
  backoffResetMs: number;
}

/** When the agent may dial again: a capped, jittered backoff after failures, or a switch's `gsp-retry-at`. */
export class Redial {
  /** Consecutive failures, for the backoff. */
  private attempt = 0;
  /** No dial before this moment. */
  private notBefore = 0;

  constructor(private readonly options: RedialOptions) {}

  /** How long the next dial must wait still; not positive: it may go now. */
  get wait(): number {
    return this.notBefore - Date.now();
  }

  /** A tunnel has stayed up for AGENT_BACKOFF_RESET: the failures before it are forgiven. */
  settle(held: readonly Held[], lastedSince?: number): void {
    const now = Date.now();
    const stable = (since: number) => now - since >= this.options.backoffResetMs;
    if ((lastedSince !== undefined && stable(lastedSince)) || held.some((h) => stable(h.connectedAt))) this.attempt = 0;
  }

  /**
   * Schedules the next dial after a failure or a lost tunnel, as `err` (if any) allows. Tunnels
   * lost while a wait already runs (a switch closes them all at once) add no step of their own.
   */
  backOff(err: ConnectError | undefined): void {
    if (this.notBefore > Date.now()) return;
    const { backoffInitialMs, backoffMaxMs } = this.options;
    let wait =
      err !== undefined && rejectedToken(err)
        ? backoffMaxMs
        : backoffDelay(this.attempt, backoffInitialMs, backoffMaxMs);
    // Refused by a switch that expires: back no later than that moment.
    const retryAt = err === undefined ? undefined : retryAtDelay(err, Date.now());
    if (retryAt !== undefined && retryAt < wait) wait = retryAt;
    this.attempt++;
    this.notBefore = Date.now() + wait;
  }
}
