import { setTimeout as sleep } from 'node:timers/promises';
import type { ExportRecord, SendResult, Sink } from './sink.js';

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** A number in [0, 1); Math.random unless a test supplies one. */
  random?: () => number;
}

/** Capped exponential backoff with full jitter for attempt n (0-based), never below `retryAfterMs` when the receiver asked. */
export function backoffDelay(attempt: number, options: BackoffOptions, retryAfterMs?: number): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** Math.min(Math.max(0, attempt), 52));
  const jittered = Math.floor((options.random ?? Math.random)() * ceiling);
  return Math.max(jittered, retryAfterMs ?? 0);
}

export interface DeliverOptions {
  backoff: BackoffOptions;
  signal?: AbortSignal;
  /** Each failed attempt that will be retried (for metrics and a rate-limited log). */
  onRetry?(reason: string, delayMs: number): void;
}

/**
 * Sends `records` to `sink` until it is delivered or poisoned, waiting between attempts.
 * Resolves with the final result ('delivered' or 'poison'); rejects only when `signal` aborts.
 */
export async function deliver(
  sink: Sink,
  records: readonly ExportRecord[],
  options: DeliverOptions,
): Promise<SendResult & { outcome: 'delivered' | 'poison' }> {
  for (let attempt = 0; ; attempt++) {
    options.signal?.throwIfAborted();
    const result = await sink.send(records, options.signal);
    if (result.outcome !== 'retry') return result;
    const delay = backoffDelay(attempt, options.backoff, result.retryAfterMs);
    options.onRetry?.(result.reason, delay);
    await sleep(delay, undefined, options.signal ? { signal: options.signal } : {});
  }
}
