import t from 'tap';
import fc from 'fast-check';
import {
  cliAccessDisabledMessage,
  hasLoneSurrogate,
  hasUnshowable,
  hasVisibleCharacter,
  REASON_MAX_LENGTH,
  reasonProblem,
  replaceUnshowable,
} from '../src/index.js';
import type { SwitchRecord } from '../src/index.js';

/**
 * What the issue found accepted, and their kin: halves of characters, the Arabic letter mark,
 * zero-width characters, word joiner, byte order mark, tags, bidirectional controls and isolates,
 * line and paragraph separators, soft hyphen, C0 and C1 controls.
 */
const REFUSED = [
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\u061c',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u{e0001}',
  '\u{e0020}',
  '\u{e0041}',
  '\u{e007f}',
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202e',
  '\u2066',
  '\u2069',
  '\u2028',
  '\u2029',
  '\u00ad',
  '\u0000',
  '\n',
  '\u001b',
  '\u007f',
  '\u0085',
];
/** Characters that are fine in a reason but show nothing by themselves. */
const BLANK = [' ', '\u00a0', '\u3000', '\u3164', '\u2800', '\u0301', '\ufe0f'];
/** Characters a reader sees, from several scripts, astral ones included. */
const SEEN = ['a', 'Z', '7', 'ß', 'é', 'ж', 'ع', '名', '한', '😀', '🚧', '❤', '‽', '“'];

const char = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SEEN) },
  { weight: 2, arbitrary: fc.constantFrom(...BLANK) },
  { weight: 1, arbitrary: fc.constantFrom(...REFUSED) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
);
const text = fc.array(char, { maxLength: 40 }).map((chars) => chars.join(''));

/** Well-formed: UTF-8 (what PostgreSQL and Kubernetes store) gives back the very same string. */
const survivesUtf8 = (s: string): boolean => Buffer.from(s, 'utf8').toString('utf8') === s;

t.test('a reason the rule accepts is stored and shown exactly as written, and has something to read', async (t) => {
  fc.assert(
    fc.property(text, (reason) => {
      if (reasonProblem(reason) !== undefined) return;
      if (!survivesUtf8(reason)) throw new Error(`${JSON.stringify(reason)} is not well-formed`);
      // By code point: a low half inside a pair is no half.
      for (const c of reason)
        if (REFUSED.includes(c)) throw new Error(`${JSON.stringify(reason)} holds ${JSON.stringify(c)}`);
      const seen = [...reason].filter((c) => !BLANK.includes(c) && c.trim() !== '');
      if (seen.length === 0) throw new Error(`${JSON.stringify(reason)} has nothing visible`);
      if ([...reason].length > REASON_MAX_LENGTH) throw new Error(`${JSON.stringify(reason)} is too long`);
    }),
    { numRuns: 2000 },
  );
  t.pass('2000 generated reasons');
});

t.test('any refused character in an accepted reason makes it refused, saying why', async (t) => {
  fc.assert(
    fc.property(text, fc.constantFrom(...REFUSED), fc.nat(), (reason, refused, at) => {
      const chars = [...`ok ${reason}`];
      chars.splice(at % (chars.length + 1), 0, refused);
      // A low half put right after a high one makes a whole character: nothing refused is left.
      fc.pre([...chars.join('')].includes(refused));
      const problem = reasonProblem(chars.join(''));
      if (problem === undefined) throw new Error(`${JSON.stringify(chars.join(''))} was accepted`);
      if (!/well-formed|printable|at most/.test(problem)) throw new Error(problem);
    }),
    { numRuns: 2000 },
  );
  t.pass('refused wherever it stands');
});

t.test('a reason made of blanks and invisible characters only is blank or unprintable, never accepted', async (t) => {
  const nothingToSee = fc
    .array(fc.constantFrom(...BLANK, ...REFUSED), { minLength: 1, maxLength: 20 })
    .map((chars) => chars.join(''))
    .filter((s) => [...s].every((c) => BLANK.includes(c) || REFUSED.includes(c))); // no two halves made one
  fc.assert(fc.property(nothingToSee, (reason) => reasonProblem(reason) !== undefined && !hasVisibleCharacter(reason)));
  t.equal(
    reasonProblem('\u200b'),
    'reason must be printable: no control characters, line breaks, bidirectional controls or invisible characters',
  );
  t.equal(reasonProblem('\u3164'), 'reason must not be blank: it needs at least one visible character');
  t.equal(reasonProblem(''), 'reason must not be empty');
});

t.test('characters are counted as people count them: in code points, an emoji is one', async (t) => {
  t.equal(reasonProblem('😀'.repeat(REASON_MAX_LENGTH)), undefined);
  t.equal(
    reasonProblem('😀'.repeat(REASON_MAX_LENGTH + 1)),
    `reason must be at most ${REASON_MAX_LENGTH} characters long (it has ${REASON_MAX_LENGTH + 1})`,
  );
});

t.test('the cleaner of names leaves nothing the reason rule refuses, only what it keeps', async (t) => {
  fc.assert(
    fc.property(text, (name) => {
      const cleaned = replaceUnshowable(name);
      return !hasUnshowable(cleaned) && !hasLoneSurrogate(cleaned) && survivesUtf8(cleaned);
    }),
    { numRuns: 2000 },
  );
  t.equal(replaceUnshowable('Ma\u202ellory\u200b\u{e0041}\ud800x'), 'Ma llory x');
});

t.test("kubectl's refusal says whose decision an off was: the platform's policy or the tenant's", async (t) => {
  const POLICY = 'CLI access is disabled by platform policy'; // the specification's words
  const TENANT = "CLI access is disabled by the tenant's own decision";
  const record = (actorRole: string | null): SwitchRecord => ({
    value: false,
    actor: 'olga',
    actorRole,
    setAt: 0,
    reason: 'draining',
    expiresAt: null,
  });
  t.equal(
    cliAccessDisabledMessage('c-1', 'cluster', 'the proxy', record('operator')),
    `${TENANT} for cluster c-1: set by tenant operator olga for this cluster: "draining"`,
  );
  t.equal(
    cliAccessDisabledMessage('c-1', 'cluster', 'the proxy', record('admin')),
    `${TENANT} for cluster c-1: set by tenant admin olga for this cluster: "draining"`,
  );
  t.equal(
    cliAccessDisabledMessage('c-1', 'cluster', 'the proxy', record('platform-admin')),
    `${POLICY} for cluster c-1: set by a platform admin for this cluster: "draining"`,
    "a platform admin's override of one cluster is the platform's policy",
  );
  t.equal(
    cliAccessDisabledMessage('c-1', 'platform', 'the proxy', record('platform-admin')),
    `${POLICY} for cluster c-1: set by a platform admin for the whole platform: "draining"`,
  );
  t.match(
    cliAccessDisabledMessage('c-1', 'env', 'the proxy'),
    /^CLI access is disabled by platform policy for cluster c-1/,
  );
});
