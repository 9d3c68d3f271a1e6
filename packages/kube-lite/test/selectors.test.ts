import t from 'tap';
import fc from 'fast-check';
import { matchesLabels, parseFieldSelector, parseLabelSelector, SelectorError, type Requirement } from '@gsp/kube-lite';

// The grammar, from the Kubernetes "Labels and Selectors" documentation:
// a key is an optional DNS subdomain prefix and '/', then a name of at most 63 characters
// beginning and ending with an alphanumeric, with '-', '_' and '.' between; a value is empty
// or follows the same rule as a name.
const alnum = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
const middle = fc.constantFrom(...'abcXYZ019-_.');
const namePart = fc
  .tuple(alnum, fc.array(middle, { maxLength: 8 }), alnum)
  .map(([a, mid, b]) => (mid.length === 0 && a === b ? a : `${a}${mid.join('')}${b}`))
  .filter((s) => s.length <= 63);
const dnsLabel = fc
  .tuple(
    fc.constantFrom(...'abcz019'),
    fc.array(fc.constantFrom(...'abz09-'), { maxLength: 6 }),
    fc.constantFrom(...'abz09'),
  )
  .map(([a, mid, b]) => `${a}${mid.join('')}${b}`);
const prefix = fc.array(dnsLabel, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('.'));
const key = fc.oneof(
  namePart,
  fc.tuple(prefix, namePart).map(([p, n]) => `${p}/${n}`),
);
const value = fc.oneof(fc.constant(''), namePart);
// Gt/Lt values must be integers and also valid label values, so they cannot be negative.
const integer = fc.integer({ min: 0, max: 1000 }).map(String);

type Op = Requirement['operator'];
const requirement: fc.Arbitrary<Requirement> = fc.oneof(
  key.map((k) => ({ key: k, operator: 'exists' as Op, values: [] as string[] })),
  key.map((k) => ({ key: k, operator: '!' as Op, values: [] as string[] })),
  fc
    .tuple(key, fc.constantFrom<Op>('=', '==', '!='), value)
    .map(([k, op, v]) => ({ key: k, operator: op, values: [v] })),
  fc
    .tuple(key, fc.constantFrom<Op>('in', 'notin'), fc.array(value, { minLength: 1, maxLength: 4 }))
    .map(([k, op, vs]) => ({ key: k, operator: op, values: vs })),
  fc.tuple(key, fc.constantFrom<Op>('gt', 'lt'), integer).map(([k, op, v]) => ({ key: k, operator: op, values: [v] })),
);
const space = fc.constantFrom('', ' ', '  ');

function render(req: Requirement, s: string): string {
  switch (req.operator) {
    case 'exists':
      return req.key;
    case '!':
      return `!${s}${req.key}`;
    case 'in':
    case 'notin':
      return `${req.key} ${req.operator}${s}(${req.values.join(`,${s}`)})`;
    case 'gt':
      return `${req.key}${s}>${s}${req.values[0]}`;
    case 'lt':
      return `${req.key}${s}<${s}${req.values[0]}`;
    default:
      return `${req.key}${s}${req.operator}${s}${req.values[0]}`;
  }
}

/** Matching as the documentation states it, written independently of the implementation. */
function documentedMatch(req: Requirement, labels: Record<string, string>): boolean {
  const present = Object.keys(labels).includes(req.key);
  const actual = labels[req.key];
  switch (req.operator) {
    case 'exists':
      return present;
    case '!':
      return !present;
    case '=':
    case '==':
      return present && actual === req.values[0];
    case '!=':
      return !present || actual !== req.values[0];
    case 'in':
      return present && req.values.some((v) => v === actual);
    case 'notin':
      return !present || req.values.every((v) => v !== actual);
    case 'gt':
      return present && /^-?\d+$/.test(actual ?? '') && Number(actual) > Number(req.values[0]);
    case 'lt':
      return present && /^-?\d+$/.test(actual ?? '') && Number(actual) < Number(req.values[0]);
  }
}

t.test('every selector written by the documented grammar parses to its requirements', async () => {
  fc.assert(
    fc.property(fc.array(requirement, { minLength: 1, maxLength: 4 }), space, (reqs, s) => {
      const text = reqs.map((r) => render(r, s)).join(`${s},${s}`);
      const parsed = parseLabelSelector(text);
      const expected = reqs.map((r) => ({ ...r, values: [...new Set(r.values)].sort() }));
      return JSON.stringify(parsed) === JSON.stringify(expected);
    }),
  );
});

t.test('a parsed selector matches label sets exactly as the documentation says', async () => {
  const labelPool = fc.constantFrom('app', 'tier', 'gsp.dev/apikey', 'x1');
  const labelValue = fc.constantFrom('', 'web', 'db', 'true', '5', '3', '12');
  const labels = fc.dictionary(labelPool, labelValue, { maxKeys: 4 });
  const poolRequirement = fc.oneof(
    fc
      .tuple(labelPool, fc.constantFrom<Op>('=', '==', '!='), labelValue)
      .map(([k, op, v]) => ({ key: k, operator: op, values: [v] })),
    fc
      .tuple(labelPool, fc.constantFrom<Op>('in', 'notin'), fc.uniqueArray(labelValue, { minLength: 1, maxLength: 3 }))
      .map(([k, op, vs]) => ({
        key: k,
        operator: op,
        values: vs,
      })),
    fc
      .tuple(labelPool, fc.constantFrom<Op>('exists', '!'))
      .map(([k, op]) => ({ key: k, operator: op, values: [] as string[] })),
    fc
      .tuple(labelPool, fc.constantFrom<Op>('gt', 'lt'), fc.constantFrom('0', '4', '7'))
      .map(([k, op, v]) => ({ key: k, operator: op, values: [v] })),
  );
  fc.assert(
    fc.property(fc.array(poolRequirement, { maxLength: 4 }), labels, (reqs, set) => {
      const selector = parseLabelSelector(reqs.map((r) => render(r, ' ')).join(','));
      return matchesLabels(selector, set) === reqs.every((r) => documentedMatch(r, set));
    }),
  );
});

t.test('the empty selector matches everything', async () => {
  fc.assert(fc.property(fc.dictionary(namePart, value), (labels) => matchesLabels(parseLabelSelector(''), labels)));
});

t.test('whatever parses has keys and values that follow the grammar', async () => {
  const keyRe = new RegExp(
    '^(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*\\/)?' +
      '[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$',
  );
  const valueRe = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;
  const noisy = fc.string({ unit: fc.constantFrom(...'ab1-_./!=(),<> in notin'.split('')), maxLength: 24 });
  fc.assert(
    fc.property(noisy, (text) => {
      let parsed: Requirement[];
      try {
        parsed = parseLabelSelector(text);
      } catch (err) {
        return err instanceof SelectorError;
      }
      return parsed.every(
        (r) =>
          keyRe.test(r.key) &&
          r.key.split('/').pop()!.length <= 63 &&
          r.values.every((v) => valueRe.test(v) && v.length <= 63),
      );
    }),
    { numRuns: 2000 },
  );
});

t.test('malformed selectors are rejected', async (t) => {
  for (const bad of [
    'a in b',
    'a in (b',
    '=b',
    'a=b=c',
    'a,',
    '!a=b',
    'a b',
    '-a=b',
    'a=-b',
    'a>b',
    `${'k'.repeat(64)}=v`,
    `k=${'v'.repeat(64)}`,
    'UPPER.example.com/a=b',
  ]) {
    t.throws(() => parseLabelSelector(bad), SelectorError, bad);
  }
});

t.test('field selectors accept =, == and != and escaped values', async (t) => {
  t.same(parseFieldSelector('metadata.name=a,metadata.namespace!=b'), [
    { field: 'metadata.name', operator: '=', value: 'a' },
    { field: 'metadata.namespace', operator: '!=', value: 'b' },
  ]);
  t.same(parseFieldSelector('metadata.name==x\\,y'), [{ field: 'metadata.name', operator: '=', value: 'x,y' }]);
  t.same(parseFieldSelector(''), []);
  t.throws(() => parseFieldSelector('metadata.name'), SelectorError);
});
