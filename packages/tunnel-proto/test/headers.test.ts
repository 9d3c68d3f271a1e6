import t from 'tap';
import fc from 'fast-check';
import { fromHeaderBlock, toHeaderBlock } from '@gsp/tunnel-proto';

const TOKEN = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
// A field name is a token; a value (as Node's parser hands it over) has no CR, LF or NUL and no
// surrounding whitespace, and may hold obs-text (bytes 0x80-0xff, read as latin1 characters).
const name = fc.string({ unit: fc.constantFrom(...TOKEN), minLength: 1, maxLength: 20 });
const valueChar = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.constant(0x09), fc.integer({ min: 0x80, max: 0xff })).map((c) => String.fromCharCode(c));
const value = fc.string({ unit: valueChar, maxLength: 40 }).map((v) => v.trim());

t.test('any header list survives the trip through a block, order and repeats included', async () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(name, value), { maxLength: 30 }), (pairs) => {
      const flat = pairs.flat();
      const back = fromHeaderBlock(toHeaderBlock(flat));
      return back.length === flat.length && back.every((v, i) => v === flat[i]);
    }),
  );
});

t.test('the block is HTTP/1.1 field lines', async (t) => {
  t.equal(toHeaderBlock(['accept', 'application/json', 'set-cookie', 'a=1', 'set-cookie', 'b=2']), 'accept: application/json\r\nset-cookie: a=1\r\nset-cookie: b=2');
  t.same(fromHeaderBlock(''), []);
  t.same(fromHeaderBlock('x-empty: '), ['x-empty', '']);
  t.same(fromHeaderBlock('url: http://a:1/b'), ['url', 'http://a:1/b'], 'only the first colon separates');
});

t.test('lines without a name are dropped instead of inventing headers', async (t) => {
  t.same(fromHeaderBlock('no colon here\r\n: no name\r\nok: 1'), ['ok', '1']);
});
