import t from 'tap';
import fc from 'fast-check';
import { create, equals, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  agentEnvelope,
  AgentFrameSchema,
  agentFramesIn,
  AgentMessageSchema,
  ENVELOPE_PREFIX_BYTES,
  proxyEnvelope,
  ProxyFrameSchema,
  proxyFramesIn,
  ProxyMessageSchema,
} from '@gsp/tunnel-proto';
import type { AgentFrame, AgentFrameInit, ProxyFrame, ProxyFrameInit } from '@gsp/tunnel-proto';

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 300 }));
const bytes = fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ minLength: 100, maxLength: 20_000 }));
const empty = fc.constant({});
/** A field left out, as the queues' init objects often leave them. */
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const proxyFrame: fc.Arbitrary<ProxyFrameInit> = fc.record(
  {
    streamId: u32,
    kind: fc.oneof(
      fc
        .record(
          { method: maybe(text), path: maybe(text), headers: maybe(text), end: maybe(fc.boolean()) },
          { requiredKeys: [] },
        )
        .map((value) => ({ case: 'open' as const, value })),
      bytes.map((value) => ({ case: 'data' as const, value })),
      empty.map((value) => ({ case: 'end' as const, value })),
      empty.map((value) => ({ case: 'cancel' as const, value })),
      empty.map((value) => ({ case: 'pause' as const, value })),
      empty.map((value) => ({ case: 'resume' as const, value })),
      fc
        .record({ clusterId: text, replicaId: text, replicaCount: u32 }, { requiredKeys: [] })
        .map((value) => ({ case: 'hello' as const, value })),
      fc.record({ count: u32 }, { requiredKeys: [] }).map((value) => ({ case: 'replicas' as const, value })),
      empty.map((value) => ({ case: 'drain' as const, value })),
    ),
  },
  { requiredKeys: [] },
);

const agentFrame: fc.Arbitrary<AgentFrameInit> = fc.record(
  {
    streamId: u32,
    kind: fc.oneof(
      fc
        .record(
          { status: maybe(u32), headers: maybe(text), body: maybe(bytes), end: maybe(fc.boolean()) },
          { requiredKeys: [] },
        )
        .map((value) => ({ case: 'response' as const, value })),
      bytes.map((value) => ({ case: 'data' as const, value })),
      empty.map((value) => ({ case: 'end' as const, value })),
      text.map((value) => ({ case: 'error' as const, value })),
      empty.map((value) => ({ case: 'pause' as const, value })),
      empty.map((value) => ({ case: 'resume' as const, value })),
      empty.map((value) => ({ case: 'drain' as const, value })),
    ),
  },
  { requiredKeys: [] },
);

/** The message in an envelope the encoder wrote, after checking its prefix (flags 0, the message's length). */
function messageOf(envelope: Buffer): Uint8Array | undefined {
  if (envelope[0] !== 0 || envelope.readUInt32BE(1) !== envelope.byteLength - ENVELOPE_PREFIX_BYTES) return undefined;
  return envelope.subarray(ENVELOPE_PREFIX_BYTES);
}

t.test(
  "a batch of proxy frames is enveloped as the message protobuf's toBinary(create()) sends: " +
    'same bytes, decoded to the same frames',
  async (t) => {
    fc.assert(
      fc.property(fc.array(proxyFrame, { maxLength: 8 }), (frames) => {
        const theirs = create(ProxyMessageSchema, { frames });
        const wire = messageOf(proxyEnvelope(frames));
        return (
          wire !== undefined &&
          Buffer.from(wire).equals(toBinary(ProxyMessageSchema, theirs)) &&
          equals(ProxyMessageSchema, fromBinary(ProxyMessageSchema, wire), theirs)
        );
      }),
      { numRuns: 500 },
    );
    t.pass('every batch matched');
  },
);

t.test(
  "a batch of agent frames is enveloped as the message protobuf's toBinary(create()) sends: " +
    'same bytes, decoded to the same frames',
  async (t) => {
    fc.assert(
      fc.property(fc.array(agentFrame, { maxLength: 8 }), (frames) => {
        const theirs = create(AgentMessageSchema, { frames });
        const wire = messageOf(agentEnvelope(frames));
        return (
          wire !== undefined &&
          Buffer.from(wire).equals(toBinary(AgentMessageSchema, theirs)) &&
          equals(AgentMessageSchema, fromBinary(AgentMessageSchema, wire), theirs)
        );
      }),
      { numRuns: 500 },
    );
    t.pass('every batch matched');
  },
);

t.test("received proxy frames decode by hand exactly as protobuf's fromBinary decodes them", async (t) => {
  fc.assert(
    fc.property(fc.array(proxyFrame, { maxLength: 8 }), (frames) => {
      const wire = toBinary(ProxyMessageSchema, create(ProxyMessageSchema, { frames }));
      const ours = proxyFramesIn(wire);
      const theirs = fromBinary(ProxyMessageSchema, wire).frames;
      return (
        ours.length === theirs.length && ours.every((f, i) => equals(ProxyFrameSchema, f, theirs[i] as ProxyFrame))
      );
    }),
    { numRuns: 500 },
  );
  t.pass('every batch matched');
});

t.test("received agent frames decode by hand exactly as protobuf's fromBinary decodes them", async (t) => {
  fc.assert(
    fc.property(fc.array(agentFrame, { maxLength: 8 }), (frames) => {
      const wire = toBinary(AgentMessageSchema, create(AgentMessageSchema, { frames }));
      const ours = agentFramesIn(wire);
      const theirs = fromBinary(AgentMessageSchema, wire).frames;
      return (
        ours.length === theirs.length && ours.every((f, i) => equals(AgentFrameSchema, f, theirs[i] as AgentFrame))
      );
    }),
    { numRuns: 500 },
  );
  t.pass('every batch matched');
});

t.test('a malformed frame is refused, not misread', async (t) => {
  // Field 1 (a frame) announcing 5 bytes with 2 present; then a response whose headers are not UTF-8.
  const truncated = Uint8Array.from([0x0a, 0x05, 0x08, 0x01]);
  t.throws(() => agentFramesIn(truncated));
  const badUtf8 = Uint8Array.from([0x0a, 0x06, 0x12, 0x04, 0x12, 0x02, 0xc3, 0x28]);
  t.throws(() => agentFramesIn(badUtf8));
  t.throws(() => fromBinary(AgentMessageSchema, badUtf8), 'protobuf refuses it too');
  // A field of a newer peer beside the frames is skipped, as protobuf skips it.
  const withUnknown = Uint8Array.from([0x10, 0x07, 0x0a, 0x02, 0x08, 0x03]);
  t.same(
    agentFramesIn(withUnknown).map((f) => f.streamId),
    [3],
  );
});
