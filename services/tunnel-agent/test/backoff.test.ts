import t from 'tap';
import fc from 'fast-check';
import { backoffDelay } from '../src/agent.js';

t.test('full jitter: a wait between 0 and the capped exponential step', async () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 100 }),
      fc.integer({ min: 1, max: 5000 }),
      fc.integer({ min: 1, max: 120_000 }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      (attempt, initial, max, r) => {
        const step = Math.min(max, initial * 2 ** attempt);
        const wait = backoffDelay(attempt, initial, max, () => r);
        return Number.isInteger(wait) && wait >= 0 && wait < Math.max(step, 1) && wait <= max;
      },
    ),
  );
});

t.test('the step doubles from the initial value until the ceiling', async (t) => {
  const almostOne = () => 0.999999;
  t.same(
    [0, 1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(attempt, 1000, 30_000, almostOne)),
    [999, 1999, 3999, 7999, 15999, 29999, 29999],
  );
  t.equal(backoffDelay(10_000, 1000, 30_000, almostOne), 29999, 'a huge attempt count does not overflow');
});
