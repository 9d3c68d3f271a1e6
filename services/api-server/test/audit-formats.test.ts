import t from 'tap';
import fc from 'fast-check';
import { negotiateFormat } from '../src/audit-log/formats.js';
import { compareInstants, parseInstant } from '../src/audit-log/instant.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

t.test('a date-time with any offset reads as the instant Date reads, to the microsecond', async (t) => {
  fc.assert(
    fc.property(
      fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('9000-01-01T00:00:00Z'), noInvalidDate: true }),
      fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
      fc.integer({ min: 0, max: 999 }),
      (date, offsetMinutes, extraMicros) => {
        // The wall-clock time at that offset, written with it.
        const local = new Date(date.getTime() + offsetMinutes * 60_000);
        const sign = offsetMinutes < 0 ? '-' : '+';
        const zone = `${sign}${pad(Math.floor(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
        const text = `${local.toISOString().slice(0, 23)}${pad(extraMicros, 3)}${zone}`;
        const instant = parseInstant(text);
        const ms = date.getTime();
        return (
          instant !== undefined &&
          instant.seconds === BigInt(Math.floor(ms / 1000)) &&
          instant.micros === (((ms % 1000) + 1000) % 1000) * 1000 + extraMicros
        );
      },
    ),
    { numRuns: 2000 },
  );
  t.pass('2,000 date-times');
});

t.test('a date-time that is not a real one is refused, not rolled over', async (t) => {
  for (const text of [
    '2026-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-01-01T23:60:00Z',
    '2026-01-01T00:00:00+00:60',
    '2026-01-01T00:00:00.Z',
    '2026-01-01T00:00:00.1234567890Z',
    '+2026-01-01T00:00:00Z',
  ]) {
    t.equal(parseInstant(text), undefined, text);
  }
  t.ok(parseInstant('2024-02-29T00:00:00Z'), 'a leap day');
  t.ok(parseInstant('2000-02-29T00:00:00Z'), 'a leap day of a century divisible by 400');
  t.equal(parseInstant('1900-02-29T00:00:00Z'), undefined, 'not in 1900');
});

t.test('instants order by seconds, then microseconds', async (t) => {
  const a = parseInstant('2026-01-01T00:00:00.000001Z')!;
  const b = parseInstant('2026-01-01T00:00:00.000002Z')!;
  const c = parseInstant('2026-01-01T01:00:00.000001+01:00')!;
  t.ok(compareInstants(a, b) < 0);
  t.ok(compareInstants(b, a) > 0);
  t.equal(compareInstants(a, c), 0, 'the same instant written at another offset');
});

t.test('Accept chooses the format by quality, then by specificity, JSON on a tie', async (t) => {
  const cases: [string | undefined, string | undefined][] = [
    [undefined, 'json'],
    ['', 'json'],
    ['*/*', 'json'],
    ['application/json', 'json'],
    ['application/x-ndjson', 'ndjson'],
    ['text/csv', 'csv'],
    ['TEXT/CSV; charset=utf-8', 'csv'],
    ['text/*', 'csv'],
    ['application/*', 'json'],
    ['application/json;q=0.5, text/csv', 'csv'],
    ['text/csv;q=0.2, application/x-ndjson;q=0.3', 'ndjson'],
    ['*/*;q=0.1, text/csv;q=0', 'json'],
    ['application/json;q=0, application/x-ndjson;q=0, */*', 'csv'],
    ['application/xml', undefined],
    ['application/json;q=0', undefined],
    ['text/html, application/xhtml+xml', undefined],
  ];
  for (const [accept, format] of cases) t.equal(negotiateFormat(undefined, accept), format, String(accept));
  t.equal(negotiateFormat('csv', 'application/json'), 'csv', '?format= wins');
  fc.assert(
    fc.property(fc.string({ maxLength: 60 }), (accept) => {
      const chosen = negotiateFormat(undefined, accept);
      return chosen === undefined || chosen === 'json' || chosen === 'ndjson' || chosen === 'csv';
    }),
    { numRuns: 500 },
  );
});
