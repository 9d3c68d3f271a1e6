import { isUtf8 } from 'node:buffer';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { WireType } from '@bufbuild/protobuf/wire';
import type {
  AgentFrame,
  AgentFrameSchema,
  Hello,
  Open,
  ProxyFrame,
  ProxyFrameSchema,
  Replicas,
  Response,
} from './gen/gsp/tunnel/v1/tunnel_pb.js';

export type ProxyFrameInit = MessageInitShape<typeof ProxyFrameSchema>;
export type AgentFrameInit = MessageInitShape<typeof AgentFrameSchema>;

/*
 * Both ends queue frames as init objects and send them in batches, one `ProxyMessage` or
 * `AgentMessage` per batch. @bufbuild/protobuf's `create` and `toBinary` would build and encode
 * each by reflection, with a fork, a join and a copy per nested message (a tenth of each end's CPU
 * per request), and `fromBinary` decode them so. These encode a batch by hand, straight into the
 * buffer of its Connect envelope, and decode a received message where it lies. The bytes are
 * exactly protobuf's: the test compares them with `toBinary(create(...))` for arbitrary batches
 * and the decoded frames with `fromBinary`'s; a malformed message (a wrong wire type, a group, a
 * truncated field, invalid UTF-8) throws, and the tunnel ends.
 */

/** Tag byte of a length-delimited field `no` (every field number here is below 16: one byte). */
const lengthDelimited = (no: number) => (no << 3) | WireType.LengthDelimited;
const varintTag = (no: number) => (no << 3) | WireType.Varint;

/** Bytes of `n` (a uint32) as a varint. */
const varintSize = (n: number): number => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);

/** A length-delimited field of `length` bytes: its tag, length and content. */
const delimitedSize = (length: number): number => 1 + varintSize(length) + length;

/** A uint32 field with implicit presence (absent when 0). */
const uint32Size = (n: number): number => (n === 0 ? 0 : 1 + varintSize(n));

/** A string field with implicit presence (absent when empty). */
const stringSize = (s: string): number => (s === '' ? 0 : delimitedSize(Buffer.byteLength(s)));

/** The content length of a length-delimited field of `size` bytes in all (`delimitedSize`'s inverse). */
function contentOf(size: number): number {
  for (let prefix = 1; prefix < 5; prefix++) if (varintSize(size - 1 - prefix) === prefix) return size - 1 - prefix;
  return size - 6;
}

class Out {
  pos = 0;
  constructor(readonly buf: Buffer) {}

  varint(n: number): void {
    const buf = this.buf;
    let pos = this.pos;
    while (n > 0x7f) {
      buf[pos++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    buf[pos++] = n;
    this.pos = pos;
  }

  /** A length-delimited field's tag and length; its content follows. */
  open(no: number, length: number): void {
    this.buf[this.pos++] = lengthDelimited(no);
    this.varint(length);
  }

  uint32(no: number, n: number): void {
    if (n === 0) return;
    this.buf[this.pos++] = varintTag(no);
    this.varint(n);
  }

  bool(no: number, b: boolean): void {
    if (!b) return;
    this.buf[this.pos++] = varintTag(no);
    this.buf[this.pos++] = 1;
  }

  /** A string with implicit presence; `always` writes an empty one too (a oneof member). */
  string(no: number, s: string, always = false): void {
    if (s === '' && !always) return;
    this.open(no, Buffer.byteLength(s));
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  bytes(no: number, b: Uint8Array): void {
    this.open(no, b.byteLength);
    this.buf.set(b, this.pos);
    this.pos += b.byteLength;
  }
}

/** A frame with no kind; a kind added to the .proto and not encoded here fails to compile. */
const unset = (_: undefined): 0 => 0;

type ProxyKind = NonNullable<ProxyFrameInit['kind']>;
type AgentKind = NonNullable<AgentFrameInit['kind']>;

/** Bytes of a ProxyFrame's `kind` field (0 when unset). */
function proxyKindSize(kind: ProxyKind | undefined): number {
  switch (kind?.case) {
    case 'open': {
      const v = kind.value;
      return delimitedSize(
        stringSize(v.method ?? '') + stringSize(v.path ?? '') + stringSize(v.headers ?? '') + (v.end ? 2 : 0),
      );
    }
    case 'data':
      return delimitedSize(kind.value.byteLength);
    case 'hello': {
      const v = kind.value;
      return delimitedSize(
        stringSize(v.clusterId ?? '') + stringSize(v.replicaId ?? '') + uint32Size(v.replicaCount ?? 0),
      );
    }
    case 'replicas':
      return delimitedSize(uint32Size(kind.value.count ?? 0));
    case 'end':
    case 'cancel':
    case 'pause':
    case 'resume':
    case 'drain':
      return 2;
    default:
      return unset(kind?.case);
  }
}

const PROXY_FIELD = { hello: 2, open: 3, data: 4, end: 5, cancel: 6, pause: 7, resume: 8, replicas: 9, drain: 10 };

function writeProxyKind(out: Out, kind: ProxyKind | undefined, size: number): void {
  switch (kind?.case) {
    case 'open': {
      const v = kind.value;
      out.open(PROXY_FIELD.open, contentOf(size));
      out.string(1, v.method ?? '');
      out.string(2, v.path ?? '');
      out.string(3, v.headers ?? '');
      out.bool(4, v.end ?? false);
      return;
    }
    case 'data':
      return out.bytes(PROXY_FIELD.data, kind.value);
    case 'hello': {
      const v = kind.value;
      out.open(PROXY_FIELD.hello, contentOf(size));
      out.string(1, v.clusterId ?? '');
      out.string(2, v.replicaId ?? '');
      out.uint32(3, v.replicaCount ?? 0);
      return;
    }
    case 'replicas':
      out.open(PROXY_FIELD.replicas, contentOf(size));
      out.uint32(1, kind.value.count ?? 0);
      return;
    case 'end':
    case 'cancel':
    case 'pause':
    case 'resume':
    case 'drain':
      return out.open(PROXY_FIELD[kind.case], 0);
    default:
      unset(kind?.case);
  }
}

/** Bytes of an AgentFrame's `kind` field (0 when unset). */
function agentKindSize(kind: AgentKind | undefined): number {
  switch (kind?.case) {
    case 'response': {
      const v = kind.value;
      const body = v.body?.byteLength ?? 0;
      return delimitedSize(
        uint32Size(v.status ?? 0) +
          stringSize(v.headers ?? '') +
          (body > 0 ? delimitedSize(body) : 0) +
          (v.end ? 2 : 0),
      );
    }
    case 'data':
      return delimitedSize(kind.value.byteLength);
    case 'error':
      return delimitedSize(Buffer.byteLength(kind.value));
    case 'end':
    case 'pause':
    case 'resume':
    case 'drain':
      return 2;
    default:
      return unset(kind?.case);
  }
}

const AGENT_FIELD = { response: 2, data: 3, end: 4, error: 5, pause: 6, resume: 7, drain: 8 };

function writeAgentKind(out: Out, kind: AgentKind | undefined, size: number): void {
  switch (kind?.case) {
    case 'response': {
      const v = kind.value;
      out.open(AGENT_FIELD.response, contentOf(size));
      out.uint32(1, v.status ?? 0);
      out.string(2, v.headers ?? '');
      if (v.body !== undefined && v.body.byteLength > 0) out.bytes(3, v.body);
      out.bool(4, v.end ?? false);
      return;
    }
    case 'data':
      return out.bytes(AGENT_FIELD.data, kind.value);
    case 'error':
      return out.string(AGENT_FIELD.error, kind.value, true);
    case 'end':
    case 'pause':
    case 'resume':
    case 'drain':
      return out.open(AGENT_FIELD[kind.case], 0);
    default:
      unset(kind?.case);
  }
}

/**
 * The encoding of `frames` as field 1 of a message, each frame's stream id then its kind, with
 * the kinds' sizes from `kindSize` and their bytes from `writeKind`.
 */
function encodeFrames<F extends { streamId?: number; kind?: K }, K>(
  frames: readonly F[],
  kindSize: (kind: K | undefined) => number,
  writeKind: (out: Out, kind: K | undefined, size: number) => void,
  reserve = 0,
): Buffer {
  const sizes = new Array<number>(frames.length);
  let total = 0;
  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i] as F;
    const kind = kindSize(frame.kind);
    sizes[i] = kind;
    total += delimitedSize(uint32Size(frame.streamId ?? 0) + kind);
  }
  const out = new Out(Buffer.allocUnsafe(reserve + total));
  out.pos = reserve;
  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i] as F;
    const kind = sizes[i] as number;
    out.open(1, uint32Size(frame.streamId ?? 0) + kind);
    out.uint32(1, frame.streamId ?? 0);
    writeKind(out, frame.kind, kind);
  }
  return out.buf;
}

/** Bytes of a Connect streaming envelope's prefix: its flags, then the message's length (uint32, big-endian). */
export const ENVELOPE_PREFIX_BYTES = 5;

/** `encodeFrames`'s message in a Connect streaming envelope (flags 0), in one buffer. */
function enveloped<F extends { streamId?: number; kind?: K }, K>(
  frames: readonly F[],
  kindSize: (kind: K | undefined) => number,
  writeKind: (out: Out, kind: K | undefined, size: number) => void,
): Buffer {
  const buf = encodeFrames(frames, kindSize, writeKind, ENVELOPE_PREFIX_BYTES);
  buf[0] = 0;
  buf.writeUInt32BE(buf.byteLength - ENVELOPE_PREFIX_BYTES, 1);
  return buf;
}

/** A batch of proxy frames as the envelope of one `ProxyMessage`, ready for the tunnel's HTTP/2 stream. */
export const proxyEnvelope = (frames: readonly ProxyFrameInit[]): Buffer =>
  enveloped(frames, proxyKindSize, writeProxyKind);

/** A batch of agent frames as the envelope of one `AgentMessage`, ready for the tunnel's HTTP/2 stream. */
export const agentEnvelope = (frames: readonly AgentFrameInit[]): Buffer =>
  enveloped(frames, agentKindSize, writeAgentKind);

const EMPTY = new Uint8Array(0);

class In {
  constructor(
    readonly buf: Buffer,
    public pos: number,
    readonly end: number,
  ) {}

  /** A varint's low 32 bits, unsigned (as protobuf reads a uint32). */
  varint(): number {
    let result = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (this.pos >= this.end) throw new Error('a truncated varint');
      const b = this.buf[this.pos++] as number;
      if (shift < 32) result |= (b & 0x7f) << shift;
      if (b < 0x80) return result >>> 0;
    }
    throw new Error('a varint longer than 10 bytes');
  }

  /** The content of a length-delimited field: [start, end). */
  delimited(wireType: number): [number, number] {
    if (wireType !== WireType.LengthDelimited)
      throw new Error(`wire type ${wireType} where a length-delimited field belongs`);
    const length = this.varint();
    const start = this.pos;
    if (length > this.end - start) throw new Error('a truncated field');
    this.pos = start + length;
    return [start, start + length];
  }

  uint32(wireType: number): number {
    if (wireType !== WireType.Varint) throw new Error(`wire type ${wireType} where a varint belongs`);
    return this.varint();
  }

  bool(wireType: number): boolean {
    return this.uint32(wireType) !== 0;
  }

  string(wireType: number): string {
    const [start, end] = this.delimited(wireType);
    const bytes = this.buf.subarray(start, end);
    if (!isUtf8(bytes)) throw new Error('invalid UTF-8 in a string field');
    return bytes.toString('utf8');
  }

  bytes(wireType: number): Uint8Array {
    const [start, end] = this.delimited(wireType);
    return this.buf.subarray(start, end);
  }

  /** Skips a field this side does not know (a newer peer's), as protobuf does; groups are refused. */
  skip(wireType: number): void {
    switch (wireType) {
      case WireType.Varint:
        this.varint();
        return;
      case WireType.Bit64:
        this.pos += 8;
        break;
      case WireType.Bit32:
        this.pos += 4;
        break;
      case WireType.LengthDelimited:
        this.delimited(wireType);
        return;
      default:
        throw new Error(`cannot skip wire type ${wireType}`);
    }
    if (this.pos > this.end) throw new Error('a truncated field');
  }

  /** Calls `field` with each field's number and wire type until `end`. */
  fields(field: (no: number, wireType: number) => void): void {
    while (this.pos < this.end) {
      const tag = this.varint();
      field(tag >>> 3, tag & 7);
    }
  }
}

/** The frames of a message from `undecoded`: its field-1 entries, one frame each. */
/** The frames of a message's bytes: every field 1 decoded by `decode`, any other field skipped. */
function framesIn<F>(bytes: Uint8Array, decode: (input: In) => F): F[] {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const input = new In(buf, 0, buf.byteLength);
  const frames: F[] = [];
  input.fields((no, wireType) => {
    if (no !== 1) return input.skip(wireType);
    const [start, end] = input.delimited(wireType);
    frames.push(decode(new In(buf, start, end)));
  });
  return frames;
}

function readProxyFrame(input: In): ProxyFrame {
  const frame: ProxyFrame = { $typeName: 'gsp.tunnel.v1.ProxyFrame', streamId: 0, kind: { case: undefined } };
  input.fields((no, wireType) => {
    switch (no) {
      case 1:
        frame.streamId = input.uint32(wireType);
        return;
      case PROXY_FIELD.open: {
        const [start, end] = input.delimited(wireType);
        const value: Open = { $typeName: 'gsp.tunnel.v1.Open', method: '', path: '', headers: '', end: false };
        const inner = new In(input.buf, start, end);
        inner.fields((n, w) => {
          if (n === 1) value.method = inner.string(w);
          else if (n === 2) value.path = inner.string(w);
          else if (n === 3) value.headers = inner.string(w);
          else if (n === 4) value.end = inner.bool(w);
          else inner.skip(w);
        });
        frame.kind = { case: 'open', value };
        return;
      }
      case PROXY_FIELD.data:
        frame.kind = { case: 'data', value: input.bytes(wireType) };
        return;
      case PROXY_FIELD.hello: {
        const [start, end] = input.delimited(wireType);
        const value: Hello = { $typeName: 'gsp.tunnel.v1.Hello', clusterId: '', replicaId: '', replicaCount: 0 };
        const inner = new In(input.buf, start, end);
        inner.fields((n, w) => {
          if (n === 1) value.clusterId = inner.string(w);
          else if (n === 2) value.replicaId = inner.string(w);
          else if (n === 3) value.replicaCount = inner.uint32(w);
          else inner.skip(w);
        });
        frame.kind = { case: 'hello', value };
        return;
      }
      case PROXY_FIELD.replicas: {
        const [start, end] = input.delimited(wireType);
        const value: Replicas = { $typeName: 'gsp.tunnel.v1.Replicas', count: 0 };
        const inner = new In(input.buf, start, end);
        inner.fields((n, w) => {
          if (n === 1) value.count = inner.uint32(w);
          else inner.skip(w);
        });
        frame.kind = { case: 'replicas', value };
        return;
      }
      case PROXY_FIELD.end:
        skipEmpty(input, wireType);
        frame.kind = { case: 'end', value: { $typeName: 'gsp.tunnel.v1.End' } };
        return;
      case PROXY_FIELD.cancel:
        skipEmpty(input, wireType);
        frame.kind = { case: 'cancel', value: { $typeName: 'gsp.tunnel.v1.Cancel' } };
        return;
      case PROXY_FIELD.pause:
        skipEmpty(input, wireType);
        frame.kind = { case: 'pause', value: { $typeName: 'gsp.tunnel.v1.Pause' } };
        return;
      case PROXY_FIELD.resume:
        skipEmpty(input, wireType);
        frame.kind = { case: 'resume', value: { $typeName: 'gsp.tunnel.v1.Resume' } };
        return;
      case PROXY_FIELD.drain:
        skipEmpty(input, wireType);
        frame.kind = { case: 'drain', value: { $typeName: 'gsp.tunnel.v1.Drain' } };
        return;
      default:
        input.skip(wireType);
    }
  });
  return frame;
}

function readAgentFrame(input: In): AgentFrame {
  const frame: AgentFrame = { $typeName: 'gsp.tunnel.v1.AgentFrame', streamId: 0, kind: { case: undefined } };
  input.fields((no, wireType) => {
    switch (no) {
      case 1:
        frame.streamId = input.uint32(wireType);
        return;
      case AGENT_FIELD.response: {
        const [start, end] = input.delimited(wireType);
        const value: Response = {
          $typeName: 'gsp.tunnel.v1.Response',
          status: 0,
          headers: '',
          body: EMPTY,
          end: false,
        };
        const inner = new In(input.buf, start, end);
        inner.fields((n, w) => {
          if (n === 1) value.status = inner.uint32(w);
          else if (n === 2) value.headers = inner.string(w);
          else if (n === 3) value.body = inner.bytes(w);
          else if (n === 4) value.end = inner.bool(w);
          else inner.skip(w);
        });
        frame.kind = { case: 'response', value };
        return;
      }
      case AGENT_FIELD.data:
        frame.kind = { case: 'data', value: input.bytes(wireType) };
        return;
      case AGENT_FIELD.error:
        frame.kind = { case: 'error', value: input.string(wireType) };
        return;
      case AGENT_FIELD.end:
        skipEmpty(input, wireType);
        frame.kind = { case: 'end', value: { $typeName: 'gsp.tunnel.v1.End' } };
        return;
      case AGENT_FIELD.pause:
        skipEmpty(input, wireType);
        frame.kind = { case: 'pause', value: { $typeName: 'gsp.tunnel.v1.Pause' } };
        return;
      case AGENT_FIELD.resume:
        skipEmpty(input, wireType);
        frame.kind = { case: 'resume', value: { $typeName: 'gsp.tunnel.v1.Resume' } };
        return;
      case AGENT_FIELD.drain:
        skipEmpty(input, wireType);
        frame.kind = { case: 'drain', value: { $typeName: 'gsp.tunnel.v1.Drain' } };
        return;
      default:
        input.skip(wireType);
    }
  });
  return frame;
}

/** An empty message's field (its content, fields of a newer peer, is skipped). */
function skipEmpty(input: In, wireType: number): void {
  const [start, end] = input.delimited(wireType);
  const inner = new In(input.buf, start, end);
  inner.fields((_, w) => inner.skip(w));
}

/** The frames of an `AgentMessage`'s bytes (an envelope's content); a malformed message throws. */
export const agentFramesIn = (bytes: Uint8Array): AgentFrame[] => framesIn(bytes, readAgentFrame);
/** The frames of a `ProxyMessage`'s bytes (an envelope's content); a malformed message throws. */
export const proxyFramesIn = (bytes: Uint8Array): ProxyFrame[] => framesIn(bytes, readProxyFrame);
