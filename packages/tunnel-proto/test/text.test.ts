import t from 'tap';
import fc from 'fast-check';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { ProxyFrameSchema, useNodeTextEncoding } from '@gsp/tunnel-proto';

const frame = (headers: string, path: string) =>
  create(ProxyFrameSchema, { streamId: 7, kind: { case: 'open', value: { method: 'GET', path, headers, end: true } } });

t.test('Node text encoding writes the same bytes as TextEncoder and reads them back', async (t) => {
  // Graphemes of every script, and any code point at all (lone surrogates become U+FFFD both ways).
  const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 60 }));
  const samples = fc.sample(fc.tuple(text, text), 300);
  // The setting is process-wide: take the standard encoder's bytes first, then switch.
  const expected = samples.map(([h, p]) => toBinary(ProxyFrameSchema, frame(h, p)));
  useNodeTextEncoding();
  const differing = samples.filter(([h, p], i) => {
    const bytes = toBinary(ProxyFrameSchema, frame(h, p));
    const back = fromBinary(ProxyFrameSchema, bytes);
    const headers = back.kind.case === 'open' ? back.kind.value.headers : undefined;
    return !Buffer.from(bytes).equals(expected[i] as Uint8Array) || headers !== Buffer.from(h, 'utf8').toString('utf8');
  });
  // Code points, not the strings: a random string in a TAP line can break the report itself.
  const codePoints = (s: string) => [...s].map((c) => c.codePointAt(0)?.toString(16)).join(' ');
  t.same(
    differing.map(([h, p]) => `${codePoints(h)} | ${codePoints(p)}`),
    [],
    `all ${samples.length} samples encode alike and decode back`,
  );
});

t.test('a lone surrogate becomes U+FFFD, as TextEncoder makes it', async (t) => {
  useNodeTextEncoding();
  const back = fromBinary(ProxyFrameSchema, toBinary(ProxyFrameSchema, frame('broken \ud800 header', '/')));
  t.equal(back.kind.case === 'open' ? back.kind.value.headers : undefined, 'broken \ufffd header');
});
