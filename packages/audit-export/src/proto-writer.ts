/** Protobuf wire types used here. */
export const Wire = { Varint: 0, Bit64: 1, LengthDelimited: 2 } as const;
export type Wire = (typeof Wire)[keyof typeof Wire];

function varintLength(value: number): number {
  let n = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 0x80);
    n++;
  }
  return n;
}

/**
 * A protobuf writer into one growing buffer. A nested message reserves one byte for its length
 * and moves its bytes up when the length needs more, so nothing is written twice except the
 * rare long message; strings go straight into the buffer with no intermediate copy.
 */
export class ProtoWriter {
  private buf: Buffer;
  private pos = 0;
  private readonly forks: number[] = [];

  constructor(initialBytes = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  private ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  private varintAt(offset: number, value: number): number {
    while (value >= 0x80) {
      this.buf[offset++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    this.buf[offset++] = value;
    return offset;
  }

  tag(fieldNo: number, wire: Wire): this {
    this.ensure(5);
    this.pos = this.varintAt(this.pos, fieldNo * 8 + wire);
    return this;
  }

  /** An int64 or enum value (negative numbers as ten-byte two's complement, as protobuf has it). */
  int64(value: number | bigint): this {
    if (typeof value === 'number' && value >= 0 && Number.isSafeInteger(value)) {
      this.ensure(10);
      this.pos = this.varintAt(this.pos, value);
      return this;
    }
    let big = BigInt.asUintN(64, BigInt(value));
    this.ensure(10);
    while (big >= 0x80n) {
      this.buf[this.pos++] = Number(big & 0x7fn) | 0x80;
      big >>= 7n;
    }
    this.buf[this.pos++] = Number(big);
    return this;
  }

  bool(value: boolean): this {
    this.ensure(1);
    this.buf[this.pos++] = value ? 1 : 0;
    return this;
  }

  fixed64(value: bigint): this {
    this.ensure(8);
    this.pos = this.buf.writeBigUInt64LE(BigInt.asUintN(64, value), this.pos);
    return this;
  }

  double(value: number): this {
    this.ensure(8);
    this.pos = this.buf.writeDoubleLE(value, this.pos);
    return this;
  }

  string(value: string): this {
    const length = Buffer.byteLength(value, 'utf8');
    this.ensure(5 + length);
    this.pos = this.varintAt(this.pos, length);
    this.pos += this.buf.write(value, this.pos, 'utf8');
    return this;
  }

  /** Starts a length-delimited message; `join` ends it. */
  fork(): this {
    this.ensure(1);
    this.forks.push(this.pos);
    this.pos += 1;
    return this;
  }

  join(): this {
    const start = this.forks.pop();
    if (start === undefined) throw new Error('join without fork');
    const length = this.pos - start - 1;
    const extra = varintLength(length) - 1;
    if (extra > 0) {
      this.ensure(extra);
      this.buf.copyWithin(start + 1 + extra, start + 1, this.pos);
      this.pos += extra;
    }
    this.varintAt(start, length);
    return this;
  }

  finish(): Buffer {
    if (this.forks.length !== 0) throw new Error('unjoined fork');
    return this.buf.subarray(0, this.pos);
  }
}
