import t from 'tap';
import fc from 'fast-check';
import { validateHeaderValue } from 'node:http';
import { SUBJECT_MAX_LENGTH, SUBJECT_RULE, subjectProblem } from '../src/index.js';

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
