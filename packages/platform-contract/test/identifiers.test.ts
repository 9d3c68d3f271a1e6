import t from 'tap';
import fc from 'fast-check';
import { validateHeaderValue } from 'node:http';
import {
  DNS_LABEL_PATTERN,
  DNS_SUBDOMAIN_PATTERN,
  SUBJECT_MAX_LENGTH,
  SUBJECT_RULE,
  isDnsLabel,
  isDnsSubdomain,
  subjectProblem,
} from '../src/index.js';

/** Printable ASCII, what kube-apiserver reads back from the header exactly as it was written. */
const visible = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));
const anyChar = fc.oneof(
  visible,
  fc.constantFrom(' ', '\t', '\r', '\n', '\u0000', '\u007f', '\u0085', 'é', 'ÿ', 'Ā', '名', '😀'),
);

t.test('a subject the rule accepts is one the proxy can send as Impersonate-User, unchanged', async (t) => {
  fc.assert(
    fc.property(fc.string({ unit: anyChar, minLength: 0, maxLength: 300 }), (subject) => {
      // Mostly refused: the next property walks the accepted ones.
      if (subjectProblem(subject) !== undefined) return;
      // Node sends it as a header, the receiving end strips nothing, and it is no Kubernetes name.
      validateHeaderValue('impersonate-user', subject);
      t.ok(/^[\x20-\x7e]+$/.test(subject) && subject.trim() === subject && subject.length <= SUBJECT_MAX_LENGTH);
      t.notOk(subject.startsWith('system:'));
    }),
  );
});

t.test('the rule accepts every visible-ASCII subject up to 255 characters that is not system:', async (t) => {
  fc.assert(
    fc.property(
      fc.constantFrom('', 'system:', 'System:'),
      fc.string({ unit: visible, minLength: 1, maxLength: SUBJECT_MAX_LENGTH }),
      fc.string({ unit: fc.oneof(visible, fc.constant(' ')), maxLength: 40 }),
      (prefix, edge, inner) => {
        const subject = (prefix + edge[0] + inner + edge).slice(0, SUBJECT_MAX_LENGTH).trimEnd();
        t.equal(subjectProblem(subject), subject.startsWith('system:') ? SUBJECT_RULE : undefined, subject);
      },
    ),
  );
});

t.test(
  'system: subjects, surrounding spaces, characters above U+007E, empty and overlong ones are refused',
  async (t) => {
    for (const subject of [
      'system:kube-controller-manager',
      'system:',
      '',
      ' alice',
      'alice ',
      'ünïcode',
      '名前',
      'mallory\r\nImpersonate-Group: system:masters',
      'x'.repeat(SUBJECT_MAX_LENGTH + 1),
    ]) {
      t.equal(subjectProblem(subject), SUBJECT_RULE, JSON.stringify(subject));
    }
    t.equal(subjectProblem('System:not-reserved'), undefined, 'Kubernetes names are case-sensitive');
    t.match(SUBJECT_RULE, /system:/, 'the rule names the reserved prefix');
  },
);

/** RFC 1123's label in words, character by character, to hold the regular expression to. */
function isLabelByHand(value: string): boolean {
  const alphanumeric = (c: string | undefined) => c !== undefined && /^[a-z0-9]$/.test(c);
  return (
    value.length >= 1 &&
    value.length <= 63 &&
    [...value].every((c) => alphanumeric(c) || c === '-') &&
    alphanumeric(value[0]) &&
    alphanumeric(value[value.length - 1])
  );
}

const labelChar = fc.constantFrom('a', 'z', '0', '9', '-', '.', 'A', '_', ' ', '\n', 'é');

t.test('a DNS label is 1 to 63 lower-case letters, digits and "-", alphanumeric at both ends', async (t) => {
  fc.assert(
    fc.property(fc.string({ unit: labelChar, minLength: 0, maxLength: 70 }), (value) => {
      t.equal(isDnsLabel(value), isLabelByHand(value), JSON.stringify(value));
    }),
    { numRuns: 2000 },
  );
  t.ok(isDnsLabel('a'.repeat(63)));
  t.notOk(isDnsLabel('a'.repeat(64)), 'at most 63 characters');
  t.notOk(isDnsLabel('constructor-'), 'ends with a letter or digit');
});

t.test('a DNS subdomain is labels joined by dots, at most 253 characters', async (t) => {
  fc.assert(
    fc.property(fc.string({ unit: labelChar, minLength: 0, maxLength: 80 }), (value) => {
      const byHand =
        value.length <= 253 && value.split('.').every((part) => /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(part));
      t.equal(isDnsSubdomain(value), byHand, JSON.stringify(value));
    }),
    { numRuns: 2000 },
  );
  t.ok(isDnsSubdomain(`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`), '253 characters');
  t.notOk(isDnsSubdomain(`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`), '254 characters');
});

t.test('the JSON-Schema patterns are the same rules, anchored at both ends', async (t) => {
  t.equal(DNS_LABEL_PATTERN, '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$');
  t.ok(new RegExp(DNS_SUBDOMAIN_PATTERN).test('gsp.dev'));
  t.notOk(new RegExp(DNS_SUBDOMAIN_PATTERN).test('gsp..dev'));
});
