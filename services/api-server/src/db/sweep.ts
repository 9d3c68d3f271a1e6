import type { FastifyInstance } from 'fastify';

export interface PeriodicSweep<T> {
  /** What the sweep is called in its log lines ("agent presence sweep"). */
  name: string;
  intervalMs: number;
  /** One pass; at most one runs at a time, and a tick while one runs is skipped. */
  run(): Promise<T>;
  /** Called with what a pass did, to log it at the level it deserves. */
  done(result: T): void;
}

/**
 * Runs `sweep.run` every `intervalMs` on every replica (each pass is safe to run twice, so no
 * election), logs a failure once per outage rather than once per tick, and says when it works again.
 * The timer does not keep the process alive; close waits for a pass under way.
 */
export function sweepPeriodically<T>(app: FastifyInstance, sweep: PeriodicSweep<T>): void {
  let running: Promise<void> | undefined;
  let failing = false;
  const tick = () => {
    running ??= sweep
      .run()
      .then(
        (result) => {
          if (failing) app.log.info(`${sweep.name} works again`);
          failing = false;
          sweep.done(result);
        },
        (err: Error) => {
          if (!failing) app.log.warn({ err: { message: err.message } }, `${sweep.name} failed; will retry`);
          failing = true;
        },
      )
      .finally(() => (running = undefined));
  };
  const timer = setInterval(tick, sweep.intervalMs);
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await running;
  });
}
