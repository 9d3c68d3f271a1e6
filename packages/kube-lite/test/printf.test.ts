import t from 'tap';
import fc from 'fast-check';
import { printf } from '../src/container/printf.js';

t.test('every argument of %s comes out exactly as given, whatever it holds', async (t) => {
  fc.assert(
    fc.property(fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 6 }), (args) => {
      const result = printf(['<%s>\\n', ...args]);
      return result.code === 0 && result.stderr === '' && result.stdout === args.map((arg) => `<${arg}>\n`).join('');
    }),
  );
  t.pass();
});

t.test('%d prints any integer in decimal', async (t) => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      (n) => printf(['%d', String(n)]).stdout === String(n),
    ),
  );
  t.pass();
});

t.test('the format is reused while arguments remain; missing ones are empty or zero', async (t) => {
  t.same(printf(['%s-%d;', 'a', '1', 'b']), { code: 0, stdout: 'a-1;b-0;', stderr: '' });
  t.same(printf(['no conversions\\n', 'extra']), {
    code: 0,
    stdout: 'no conversions\n',
    stderr: "printf: warning: ignoring excess arguments, starting with 'extra'\n",
  });
  t.same(printf(['100%%\\t\\\\\\n']), { code: 0, stdout: '100%\t\\\n', stderr: '' });
});

t.test('bad input fails as coreutils printf does', async (t) => {
  t.same(printf([]), { code: 1, stdout: '', stderr: 'printf: missing operand\n' });
  t.same(printf(['%d|', '12abc', 'x']), {
    code: 1,
    stdout: '12|0|',
    stderr: "printf: '12abc': value not completely converted\nprintf: 'x': expected a numeric value\n",
  });
  t.same(printf(['a%z', 'b']), { code: 1, stdout: 'a', stderr: 'printf: %z: invalid conversion specification\n' });
});
