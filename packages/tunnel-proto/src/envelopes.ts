import { TunnelService } from './gen/gsp/tunnel/v1/tunnel_pb.js';
import { ENVELOPE_PREFIX_BYTES } from './messages.js';

/*
 * The tunnel is one Connect-protocol bidi stream (https://connectrpc.com/docs/protocol#streaming-rpcs)
 * that both ends read and write on the HTTP/2 stream itself: a batch of frames is one envelope
 * written as it is encoded, and a received chunk is cut into envelopes and decoded where it lies,
 * with no per-message promise, async iterator or copy between them. The bytes are those of any
 * Connect client or server (the tests talk to the proxy with Connect's own client).
 */

/** The tunnel RPC's path: `POST /gsp.tunnel.v1.TunnelService/Connect`. */
export const TUNNEL_RPC_PATH = `/${TunnelService.typeName}/${TunnelService.method.connect.name}`;

/** The media type of the tunnel's stream, both ways. */
export const TUNNEL_CONTENT_TYPE = 'application/connect+proto';

/** An envelope flag: its message is compressed (the tunnel negotiates no compression: refused). */
export const COMPRESSED_FLAG = 0b01;
/** An envelope flag: the server's last envelope, a JSON `EndStreamResponse` (its error and trailers). */
export const END_STREAM_FLAG = 0b10;

/** The largest envelope read: a batch is at most 256 KiB plus one chunk, far below it. */
export const ENVELOPE_MAX_BYTES = 16 * 1024 * 1024;

/** A stream's bytes do not form envelopes (too large, or compressed when nothing was negotiated). */
export class EnvelopeError extends Error {
  override name = 'EnvelopeError';
}

/**
 * Cuts a byte stream into Connect envelopes, calling `onEnvelope` with each one's flags and
 * message (a view of the received bytes, not a copy, unless the envelope spanned chunks). An
 * envelope spread over many chunks is joined once, when its last byte has come.
 */
export class EnvelopeReader {
  private parts: Buffer[] = [];
  private buffered = 0;
  /** Bytes of the envelope being gathered (prefix included), once its prefix has come; else 0. */
  private needed = 0;

  constructor(
    private readonly onEnvelope: (flags: number, message: Buffer) => void,
    private readonly maxBytes = ENVELOPE_MAX_BYTES,
  ) {}

  /** Bytes received that do not yet form a whole envelope (a stream that ends with some was cut). */
  get pending(): number {
    return this.buffered;
  }

  /** Reads `chunk`; throws EnvelopeError when the stream cannot be read further. */
  push(chunk: Buffer): void {
    let buf = chunk;
    if (this.buffered > 0) {
      this.parts.push(chunk);
      this.buffered += chunk.byteLength;
      if (this.needed === 0 && this.buffered >= ENVELOPE_PREFIX_BYTES) {
        const head = Buffer.concat(this.parts, this.buffered);
        this.parts = [head];
        this.needed = ENVELOPE_PREFIX_BYTES + this.lengthAt(head, 0);
      }
      if (this.needed === 0 || this.buffered < this.needed) return;
      buf = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.buffered);
      this.parts = [];
      this.buffered = 0;
      this.needed = 0;
    }
    let pos = 0;
    while (buf.byteLength - pos >= ENVELOPE_PREFIX_BYTES) {
      const length = this.lengthAt(buf, pos);
      const end = pos + ENVELOPE_PREFIX_BYTES + length;
      if (end > buf.byteLength) {
        this.needed = end - pos;
        break;
      }
      const flags = buf[pos] as number;
      if ((flags & COMPRESSED_FLAG) !== 0) throw new EnvelopeError('a compressed message where none was negotiated');
      this.onEnvelope(flags, buf.subarray(pos + ENVELOPE_PREFIX_BYTES, end));
      pos = end;
    }
    if (pos < buf.byteLength) {
      const rest = pos === 0 ? buf : buf.subarray(pos);
      this.parts = [rest];
      this.buffered = rest.byteLength;
    }
  }

  private lengthAt(buf: Buffer, pos: number): number {
    const length = buf.readUInt32BE(pos + 1);
    if (length > this.maxBytes)
      throw new EnvelopeError(`a message of ${length} bytes, above the limit of ${this.maxBytes}`);
    return length;
  }
}

/** An envelope with `flags` around `message`. */
export function envelope(flags: number, message: Uint8Array): Buffer {
  const buf = Buffer.allocUnsafe(ENVELOPE_PREFIX_BYTES + message.byteLength);
  buf[0] = flags;
  buf.writeUInt32BE(message.byteLength, 1);
  buf.set(message, ENVELOPE_PREFIX_BYTES);
  return buf;
}
