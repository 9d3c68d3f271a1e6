import t from 'tap';
import fc from 'fast-check';
import { ConfigError, durationVar, parseDuration } from '@gsp/service-kit';

t.test('plain numbers are seconds, units are honoured', async (t) => {
  t.equal(parseDuration('10'), 10_000);
  t.equal(parseDuration('10s'), 10_000);
  t.equal(parseDuration('500ms'), 500);
  t.equal(parseDuration('5m'), 300_000);
  t.equal(parseDuration('12h'), 43_200_000);
  t.equal(parseDuration('30d'), 2_592_000_000);
  t.equal(parseDuration('1.5s'), 1500);
});

t.test('garbage is rejected rather than guessed', async (t) => {
  for (const bad of ['', 's', '-1s', '10 seconds', '1e3', '10x', 'ten', '10s5']) {
    t.equal(parseDuration(bad), undefined, bad);
  }
});

t.test('every integer with every unit round-trips', async () => {
  const units = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 100_000 }),
      fc.constantFrom(...(Object.keys(units) as (keyof typeof units)[])),
      (n, unit) => {
        return parseDuration(`${n}${unit}`) === n * units[unit];
      },
    ),
  );
});

t.test('strings that are not a number and a unit never parse', async () => {
  fc.assert(
    fc.property(fc.string(), (s) => {
      const result = parseDuration(s);
      return result === undefined || /^\s*\d+(\.\d+)?\s*(ms|s|m|h|d)?\s*$/.test(s);
    }),
  );
});

t.test('durationVar: the fallback when unset, the value when valid, a named refusal otherwise', async (t) => {
  t.equal(durationVar({}, 'D', 1500), 1500);
  t.equal(durationVar({ D: ' ' }, 'D', undefined), undefined, 'blank is unset');
  t.equal(durationVar({ D: '1.5s' }, 'D', 0), 1500);
  t.equal(durationVar({ D: '30d' }, 'D', 0), 2_592_000_000);
  fc.assert(
    fc.property(
      fc.string().filter((s) => s.trim() !== '' && parseDuration(s) === undefined),
      (s) => {
        try {
          durationVar({ D: s }, 'D', 1);
          return false;
        } catch (err) {
          return err instanceof ConfigError && err.variable === 'D';
        }
      },
    ),
  );
  t.throws(() => durationVar({ D: '5ms' }, 'D', 1000, 10), { message: 'D: must be at least 10 ms, got "5ms"' });
  t.throws(
    () => durationVar({ D: '0' }, 'D', 1000),
    { message: 'D: must be at least 1 ms, got "0"' },
    'zero is refused unless allowed',
  );
  t.equal(durationVar({ D: '0' }, 'D', 1000, 0), 0);
});
