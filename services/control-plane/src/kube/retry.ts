import type { FastifyBaseLogger } from 'fastify';
import { ClusterUnavailable, TooManyRequests } from '../errors.js';

export interface RetryPolicy {
  firstDelayMs: number;
  maxDelayMs: number;
  /** No attempt starts later than this after the first. */
  giveUpAfterMs: number;
}

/** Confirming or removing a key outlasts an outage of a few minutes (rolling API server restarts, say). */
export const BACKGROUND_RETRY: RetryPolicy = { firstDelayMs: 1000, maxDelayMs: 30_000, giveUpAfterMs: 15 * 60_000 };

/** Whether a failed call may succeed later: the cluster was unreachable, failing or throttling. */
export function retryable(err: unknown): boolean {
  return err instanceof ClusterUnavailable || err instanceof TooManyRequests;
}

/**
 * Writes to the cluster that must happen after the request that caused them was answered
 * (confirming an API key, removing one nobody saw). Each is retried with backoff while the
 * cluster cannot serve it, for a bounded time. `stop` gives each waiting task one last attempt
 * at once and waits for the attempts under way (each bounded by KUBE_REQUEST_TIMEOUT).
 */
export class BackgroundRetries {
  private readonly waiting = new Set<{ timer: NodeJS.Timeout; now(): void }>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly policy: RetryPolicy = BACKGROUND_RETRY,
  ) {}

  /**
   * Runs `attempt` until it resolves, fails with an error that retrying cannot mend, or the
   * policy gives up; `onGiveUp` then learns why.
   */
  run(what: string, attempt: () => Promise<void>, onGiveUp: (err: unknown) => void = () => undefined): void {
    const started = Date.now();
    let delay = this.policy.firstDelayMs;
    const once = (): void => {
      const running: Promise<void> = attempt().then(
        () => undefined,
        (err: unknown) => {
          const late = Date.now() + delay - started > this.policy.giveUpAfterMs;
          if (retryable(err) && !this.stopped && !late) return later();
          this.log.error({ err: { message: (err as Error)?.message } }, `could not ${what}; given up`);
          onGiveUp(err);
        },
      );
      this.running.add(running);
      void running.finally(() => this.running.delete(running));
    };
    const later = (): void => {
      const entry = {
        timer: setTimeout(() => entry.now(), delay),
        now: () => {
          clearTimeout(entry.timer);
          this.waiting.delete(entry);
          once();
        },
      };
      this.waiting.add(entry);
      delay = Math.min(delay * 2, this.policy.maxDelayMs);
    };
    once();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const entry of [...this.waiting]) entry.now();
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
