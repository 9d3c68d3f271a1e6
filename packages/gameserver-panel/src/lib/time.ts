import { useEffect, useState } from 'react';

/** How often the clock that ages are shown against ticks. */
export const AGE_TICK_MS = 30_000;

/**
 * How long ago something began, one way everywhere in the panel: the largest whole unit ("6 min",
 * "3 h", "2 d"), and "under 1 min" before that, since the clock ages are shown against ticks every
 * half minute. The exact time belongs in a title beside it.
 */
export function formatAge(since: string, now: number): string {
  const start = Date.parse(since);
  if (Number.isNaN(start)) return 'unknown';
  const minutes = Math.max(0, Math.floor((now - start) / 60_000));
  if (minutes < 1) return 'under 1 min';
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 1440) return `${Math.floor(minutes / 60)} h`;
  return `${Math.floor(minutes / 1440)} d`;
}

/**
 * How long a command ran: milliseconds under a second (a quick command did not take "0.0 s"),
 * tenths of a second under a minute, then minutes and seconds.
 */
export function formatDuration(ms: number): string {
  if (ms < 1) return 'less than 1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** The clock ages are shown against, ticking every AGE_TICK_MS. */
export function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), AGE_TICK_MS);
    return () => clearInterval(timer);
  }, []);
  return now;
}
