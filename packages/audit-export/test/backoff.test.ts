import t from 'tap';
import fc from 'fast-check';
import { backoffDelay, retryAfterMs, RETRY_AFTER_MAX_MS } from '@gsp/audit-export';

const options = fc.record({ baseMs: fc.integer({ min: 0, max: 10_000 }), maxMs: fc.integer({ min: 0, max: 600_000 }) });
const random = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

t.test('a delay lies between 0 and the capped exponential, whatever the attempt', (t) => {
  fc.assert(
    fc.property(options, fc.nat(10_000), random, (o, attempt, r) => {
      const delay = backoffDelay(attempt, { ...o, random: () => r });
      const cap = Math.min(o.maxMs, o.baseMs * 2 ** Math.min(attempt, 52));
      return Number.isInteger(delay) && delay >= 0 && delay <= cap && delay <= o.maxMs;
    }),
  );
  t.end();
});

t.test('a delay is never below what the receiver asked for', (t) => {
  fc.assert(
    fc.property(options, fc.nat(100), random, fc.nat(RETRY_AFTER_MAX_MS), (o, attempt, r, asked) => {
      const delay = backoffDelay(attempt, { ...o, random: () => r }, asked);
      return delay >= asked && delay <= Math.max(asked, o.maxMs);
    }),
  );
  t.end();
});

t.test('the ceiling doubles per attempt from the base until the maximum', (t) => {
  const top = { baseMs: 200, maxMs: 30_000, random: () => 0.999999 };
  t.same(
    [0, 1, 2, 3, 7, 8, 50].map((n) => backoffDelay(n, top)),
    [199, 399, 799, 1599, 25599, 29999, 29999],
  );
  t.end();
});

t.test('Retry-After is read as seconds or as an HTTP date, and bounded', (t) => {
  const now = Date.parse('2026-11-26T12:00:00Z');
  t.equal(retryAfterMs('3', now), 3000);
  t.equal(retryAfterMs(' 0 ', now), 0);
  t.equal(retryAfterMs('Thu, 26 Nov 2026 12:00:05 GMT', now), 5000);
  t.equal(retryAfterMs('Thu, 26 Nov 2026 11:00:00 GMT', now), 0, 'a date in the past means now');
  t.equal(retryAfterMs('999999', now), RETRY_AFTER_MAX_MS);
  t.equal(retryAfterMs('soon', now), undefined);
  t.equal(retryAfterMs('-1', now), undefined);
  t.equal(retryAfterMs(undefined, now), undefined);
  t.end();
});
