import t from 'tap';
import fc from 'fast-check';
import { SelectorError, matches, parseSelector } from '../src/gameservers/selector.js';
import type { Requirement } from '../src/gameservers/selector.js';

const segment = fc.stringMatching(/^[a-z0-9]([-a-z0-9_.]{0,10}[a-z0-9])?$/);
const labelKey = fc.oneof(
  segment,
  fc.tuple(fc.stringMatching(/^[a-z0-9]{1,8}(\.[a-z0-9]{1,5})?$/), segment).map(([p, n]) => `${p}/${n}`),
);
const labelValue = fc.oneof(fc.constant(''), segment);
const requirement: fc.Arbitrary<Requirement> = fc.oneof(
  fc.record({
    key: labelKey,
    op: fc.constantFrom('in' as const, 'notin' as const),
    values: fc.array(labelValue, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ key: labelKey, op: fc.constantFrom('exists' as const, 'doesnotexist' as const) }),
);

function render(r: Requirement): string {
  switch (r.op) {
    case 'exists':
      return r.key;
    case 'doesnotexist':
      return `!${r.key}`;
    default:
      return `${r.key} ${r.op} (${r.values.join(',')})`;
  }
}

/** What a requirement means, written plainly. */
function holds(r: Requirement, labels: Record<string, string>): boolean {
  const value = labels[r.key];
  if (r.op === 'exists') return value !== undefined;
  if (r.op === 'doesnotexist') return value === undefined;
  if (r.op === 'in') return value !== undefined && r.values.includes(value);
  if (r.op === 'notin') return value === undefined || !r.values.includes(value);
  return false;
}

t.test('a rendered selector parses back to the same requirements', async (t) => {
  fc.assert(
    fc.property(fc.array(requirement, { maxLength: 5 }), (requirements) => {
      const parsed = parseSelector(requirements.map(render).join(','));
      if (JSON.stringify(parsed) !== JSON.stringify(requirements)) t.same(parsed, requirements);
    }),
    { numRuns: 500 },
  );
});

t.test('a selector matches exactly the label sets every requirement holds for', async (t) => {
  fc.assert(
    fc.property(
      fc.array(requirement, { maxLength: 4 }),
      fc.dictionary(labelKey, labelValue, { maxKeys: 4 }),
      (requirements, labels) => {
        const expected = requirements.every((r) => holds(r, labels));
        if (matches(requirements, labels) !== expected)
          t.equal(matches(requirements, labels), expected, JSON.stringify({ requirements, labels }));
      },
    ),
    { numRuns: 500 },
  );
});

t.test("equality forms are kubectl's: =, == and !=", async (t) => {
  t.same(parseSelector('app=web, tier == db,env!=prod'), [
    { key: 'app', op: 'in', values: ['web'] },
    { key: 'tier', op: 'in', values: ['db'] },
    { key: 'env', op: 'notin', values: ['prod'] },
  ]);
  t.ok(matches(parseSelector('env!=prod'), {}), 'a missing label is not equal to anything');
});

t.test('any text either parses or is refused with a SelectorError, never another exception', async (t) => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
      try {
        parseSelector(text);
      } catch (err) {
        if (!(err instanceof SelectorError)) t.fail(`${JSON.stringify(text)} threw ${String(err)}`);
      }
    }),
    { numRuns: 2000 },
  );
  t.pass('2000 random strings parsed or refused cleanly');
  for (const bad of ['a b', 'app=(x', 'in (a)', '=x', 'a,,b', 'key=val ue', '!'])
    t.throws(() => parseSelector(bad), { name: 'SelectorError' }, bad);
});
