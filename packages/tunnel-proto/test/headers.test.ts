import t from 'tap';
import fc from 'fast-check';
import { fromHeaderBlock, HeaderBlockError, toHeaderBlock } from '@gsp/tunnel-proto';

const TOKEN = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
// A field name is a token; a value (as Node's parser hands it over) has no CR, LF or NUL and no
// surrounding whitespace, and may hold obs-text (bytes 0x80-0xff, read as latin1 characters).
const name = fc.string({ unit: fc.constantFrom(...TOKEN), minLength: 1, maxLength: 20 });
const valueChar = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.constant(0x09), fc.integer({ min: 0x80, max: 0xff }))
  .map((c) => String.fromCharCode(c));
const value = fc.string({ unit: valueChar, maxLength: 40 }).map((v) => v.trim());

// Any string at all: every code point, and often the characters that could end or split a line.
const edgy = fc.constantFrom(
  ...['\r', '\n', '\r\n', '\0', '\t', ' ', ':', '\x7f', '\x85', '\xa0', '\u2028', '\u0100', 'a', 'Impersonate-Group'],
);
const anyString = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: edgy, maxLength: 6 }),
  fc.tuple(value, edgy, value).map((parts) => parts.join('')),
  name,
  value,
);
/** A string as an assertion's name: escaped, as a raw U+2028 would break the TAP stream. */
const shown = (s: string): string =>
  (s === '' ? '(empty)' : s).replace(/[^\x21-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

t.test('any header list survives the trip through a block, order and repeats included', async () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(name, value), { maxLength: 30 }), (pairs) => {
      const flat = pairs.flat();
      const back = fromHeaderBlock(toHeaderBlock(flat));
      return back.length === flat.length && back.every((v, i) => v === flat[i]);
    }),
  );
});

t.test('whatever the strings, a block is refused or carries exactly the pairs given, never one more', async (t) => {
  let carried = 0;
  let refused = 0;
  fc.assert(
    fc.property(fc.array(fc.tuple(anyString, anyString), { maxLength: 6 }), (pairs) => {
      const flat = pairs.flat();
      let block: string;
      try {
        block = toHeaderBlock(flat);
      } catch (err) {
        refused++;
        return err instanceof HeaderBlockError;
      }
      carried++;
      const back = fromHeaderBlock(block);
      return back.length === flat.length && back.every((v, i) => v === flat[i]);
    }),
    { numRuns: 2000 },
  );
  t.ok(carried > 0 && refused > 0, `both outcomes were tried (${carried} carried, ${refused} refused)`);
});

t.test('a value with a line break cannot become a header of its own', async (t) => {
  const subject = 'mallory-x\r\nImpersonate-Group: system:masters';
  const err = t.throws(() => toHeaderBlock(['accept', '*/*', 'impersonate-user', subject])) as HeaderBlockError;
  t.type(err, HeaderBlockError);
  t.equal(err.code, 'ERR_HEADER_VALUE');
  t.notMatch(err.message, /system:masters|mallory|[\r\n]/, 'the message never repeats the refused value');
  t.match(err.message, /impersonate-user/, 'the message names the header');
  for (const bad of ['a\nb', 'a\rb', 'a\0b', 'a\x01b', 'a\x7fb', 'a\u0100b', 'a\u2028b', ' a', 'a\t']) {
    t.throws(() => toHeaderBlock(['x', bad]), { code: 'ERR_HEADER_VALUE' }, shown(bad));
  }
  t.equal(toHeaderBlock(['x', 'a\tb c\x80\xff']), 'x: a\tb c\x80\xff', 'inner HTAB and SP, and obs-text, are content');
});

t.test('a name must be a token', async (t) => {
  for (const bad of ['', 'a b', 'a:b', 'a\r\nb', 'a\0', 'é', 'a\t']) {
    const err = t.throws(() => toHeaderBlock([bad, 'v']), { code: 'ERR_HEADER_NAME' }, shown(bad)) as Error;
    t.notMatch(err.message, /[\r\n\0]/);
  }
});

t.test('a name without a value is refused, not dropped', async (t) => {
  t.throws(() => toHeaderBlock(['accept', '*/*', 'dangling']), { code: 'ERR_HEADER_LIST' });
});

t.test('the block is HTTP/1.1 field lines', async (t) => {
  t.equal(
    toHeaderBlock(['accept', 'application/json', 'set-cookie', 'a=1', 'set-cookie', 'b=2']),
    'accept: application/json\r\nset-cookie: a=1\r\nset-cookie: b=2',
  );
  t.same(fromHeaderBlock(''), []);
  t.same(fromHeaderBlock('x-empty: '), ['x-empty', '']);
  t.same(fromHeaderBlock('url: http://a:1/b'), ['url', 'http://a:1/b'], 'only the first colon separates');
  t.same(fromHeaderBlock('x:  \xa0a\xa0 '), ['x', '\xa0a\xa0'], 'only SP and HTAB surround a value');
});

t.test('lines without a name are dropped instead of inventing headers', async (t) => {
  t.same(fromHeaderBlock('no colon here\r\n: no name\r\nok: 1'), ['ok', '1']);
});

t.test('lines of a foreign block that no encoder would write are dropped, never passed on', async (t) => {
  t.same(fromHeaderBlock('a: 1\nset-cookie: x\r\nb: 2\rc: 3\r\nbad name: 4\r\nd: 5\0\r\nok: 6'), ['ok', '6']);
});
