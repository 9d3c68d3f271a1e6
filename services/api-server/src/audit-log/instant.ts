/** A moment to the microsecond (PostgreSQL's precision), as whole seconds and microseconds since 1970 UTC. */
export interface Instant {
  seconds: bigint;
  micros: number;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time with its offset, to the microsecond (digits past the sixth are dropped);
 * `undefined` when it is not one. Converted here rather than handed to PostgreSQL as text, which
 * refuses some valid ones (year 0000, offsets past 15:59) with an error instead of a 400.
 */
export function parseInstant(text: string): Instant | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0); // day 0 of the next month: the last day of this one
  if (day < 1 || day > date.getUTCDate()) return undefined;
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, 0);
  return { seconds: BigInt(date.getTime() / 1000), micros: Number((m[7] ?? '').padEnd(6, '0').slice(0, 6)) };
}

/** Orders two instants: negative, zero or positive, as `a` is before, at or after `b`. */
export function compareInstants(a: Instant, b: Instant): number {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
  return a.micros - b.micros;
}
