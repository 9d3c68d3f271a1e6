import type { Logger } from '@gsp/service-kit';
import type { FlagService } from './service.js';

/** The longest the scheduler sleeps: a value written by another replica is seen within it even without an event. */
const POLL_MS = 1000;

/**
 * Clears flag values when their `expiresAt` passes. Every replica runs one: each wakes at the next
 * expiry the database knows of (by the database's clock) and at least every second, and the rows
 * are claimed with `SKIP LOCKED`, so a value is cleared once, by whichever replica gets there first.
 * The first run, at start, clears what expired while no replica was running.
 */
export class ExpiryScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly service: FlagService,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  start(): Promise<void> {
    return this.poke();
  }

  /** Looks again now: a value with an expiry was written, here or on another replica. */
  poke(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    clearTimeout(this.timer);
    this.running = (async () => {
      let next: number | undefined = POLL_MS;
      do {
        this.again = false;
        try {
          // A full batch may mean more are due.
          while ((await this.service.expireDue()) === 100 && !this.stopped);
          next = await this.service.nextExpiryInMs();
        } catch (err) {
          next = POLL_MS;
          this.log.warn(
            { err: { message: (err as Error).message } },
            'could not clear expired flag values; will retry',
          );
        }
      } while (this.again && !this.stopped);
      if (!this.stopped) {
        // A few ms past the moment, and never a busy loop while another replica holds the due rows.
        const delay = Math.min(Math.max((next ?? POLL_MS) + 5, 10), POLL_MS);
        this.timer = setTimeout(() => void this.poke(), delay);
        this.timer.unref();
      }
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
