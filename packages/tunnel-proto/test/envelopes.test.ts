import t from 'tap';
import fc from 'fast-check';
import { envelope, EnvelopeReader } from '@gsp/tunnel-proto';

const refused = { name: 'EnvelopeError' };

const message = fc.record({
  flags: fc.constantFrom(0, 2),
  bytes: fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ minLength: 1000, maxLength: 70_000 })),
});

/** `bytes` cut at `cuts` (positions, any order, repeats allowed), as a socket may deliver them. */
function chunked(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.byteLength + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const to of [...at, bytes.byteLength]) {
    chunks.push(bytes.subarray(from, to));
    from = to;
  }
  return chunks;
}

t.test('a stream of envelopes cut anywhere reads back as the same messages, in order', async (t) => {
  fc.assert(
    fc.property(fc.array(message, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 30 }), (messages, cuts) => {
      const wire = Buffer.concat(messages.map((m) => envelope(m.flags, m.bytes)));
      const read: { flags: number; bytes: Buffer }[] = [];
      const reader = new EnvelopeReader((flags, bytes) => read.push({ flags, bytes: Buffer.from(bytes) }));
      for (const chunk of chunked(wire, cuts)) reader.push(chunk);
      return (
        reader.pending === 0 &&
        read.length === messages.length &&
        read.every((m, i) => {
          const sent = messages[i];
          return sent !== undefined && m.flags === sent.flags && m.bytes.equals(sent.bytes);
        })
      );
    }),
    { numRuns: 300 },
  );
  t.pass('every stream read back');
});

t.test('a stream cut inside an envelope leaves bytes pending; nothing partial is delivered', async (t) => {
  fc.assert(
    fc.property(message, fc.nat(), (m, cut) => {
      const wire = envelope(m.flags, m.bytes);
      const upTo = cut % wire.byteLength;
      let delivered = 0;
      const reader = new EnvelopeReader(() => delivered++);
      reader.push(wire.subarray(0, upTo));
      return delivered === 0 && reader.pending === upTo;
    }),
    { numRuns: 300 },
  );
  t.pass('a cut envelope is never delivered');
});

t.test('an envelope above the limit, or compressed when nothing was negotiated, is refused', async (t) => {
  const reader = new EnvelopeReader(() => undefined, 1024);
  t.throws(() => reader.push(envelope(0, new Uint8Array(1025))), refused);
  // Refused from its prefix alone: the reader does not wait for (or hold) the announced bytes.
  const prefix = Buffer.from([0, 0xff, 0xff, 0xff, 0xff]);
  t.throws(() => new EnvelopeReader(() => undefined).push(prefix), refused);
  const split = new EnvelopeReader(() => undefined, 1024);
  split.push(prefix.subarray(0, 2));
  t.throws(() => split.push(prefix.subarray(2)), refused, 'also when the prefix comes in pieces');
  t.throws(() => new EnvelopeReader(() => undefined).push(envelope(1, new Uint8Array(3))), refused);
});
