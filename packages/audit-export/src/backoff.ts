import { setTimeout as sleep } from 'node:timers/promises';
import type { ExportRecord, SendResult, Sink } from './sink.js';
import type { Logger } from '@gsp/service-kit';
import type { ExportMetrics } from './metrics.js';

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** A number in [0, 1); Math.random unless a test supplies one. */
  random?: () => number;
}

/**
 * Capped exponential backoff with full jitter for attempt n (0-based), never below `retryAfterMs` when the receiver
 * asked.
 */
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

export interface ShipOptions {
  backoff: BackoffOptions;
  signal: AbortSignal;
  metrics: ExportMetrics;
  log: Pick<Logger, 'warn'>;
}

/**
 * `deliver` as a service ships a batch: each retry counted (`retried`) and logged, the outcome
 * counted (`delivered`, or `poisoned` and logged with the receiver's reason). Undefined when
 * `signal` stopped it first: the batch was not delivered, and stays where it was read from.
 * Keeping a poison batch, and moving past any batch, is the caller's.
 */
export async function ship(
  sink: Sink,
  records: readonly ExportRecord[],
  options: ShipOptions,
): Promise<(SendResult & { outcome: 'delivered' | 'poison' }) | undefined> {
  const { metrics, log } = options;
  const n = records.length;
  let result: SendResult & { outcome: 'delivered' | 'poison' };
  try {
    result = await deliver(sink, records, {
      backoff: options.backoff,
      signal: options.signal,
      onRetry: (reason, delayMs) => {
        metrics.retried(sink.name, n);
        log.warn({ sink: sink.name, reason, delayMs, records: n }, 'audit batch not delivered; retrying');
      },
    });
  } catch (err) {
    if (options.signal.aborted) return undefined;
    throw err;
  }
  if (result.outcome === 'delivered') metrics.delivered(sink.name, n);
  else {
    metrics.poisoned(sink.name, n);
    log.warn(
      {
        sink: sink.name,
        status: result.status,
        reason: result.reason,
        first: records[0]?.id,
        last: records.at(-1)?.id,
      },
      'the receiver refused an audit batch for good; it is kept for inspection, not retried',
    );
  }
  return result;
}
