import t from 'tap';
import fc from 'fast-check';
import { Code, ConnectError } from '@connectrpc/connect';
import { RETRY_AT_HEADER } from '@gsp/tunnel-proto';
import { backoffDelay, retryAtDelay } from '../src/agent/agent.js';

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

t.test('a refusal that names when the switch expires brings the agent back at that moment', async (t) => {
  const now = Date.parse('2026-11-26T12:00:00Z');
  const refusal = (at: string | undefined) =>
    new ConnectError(
      'CLI access is disabled by platform policy',
      Code.Unavailable,
      at ? { [RETRY_AT_HEADER]: at } : {},
    );
  t.equal(
    retryAtDelay(refusal('2026-11-26T12:00:08Z'), now, () => 0),
    8000,
  );
  t.equal(
    retryAtDelay(refusal('2026-11-26T11:00:00Z'), now, () => 0),
    0,
    'a moment already past: at once',
  );
  t.equal(retryAtDelay(refusal(undefined), now), undefined, 'no moment: the backoff decides');
  t.equal(retryAtDelay(refusal('soon'), now), undefined, 'not a date: ignored');
  t.equal(retryAtDelay(refusal('2027-06-01T00:00:00Z'), now), undefined, 'months away: ignored');
  fc.assert(
    fc.property(
      fc.integer({ min: -86_400_000, max: 30 * 86_400_000 }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      (delta, r) => {
        const wait = retryAtDelay(refusal(new Date(now + delta).toISOString()), now, () => r);
        return wait !== undefined && wait >= Math.max(0, delta) && wait < Math.max(0, delta) + 250;
      },
    ),
  );
});
