// Protobuf wire format, read side: tags, varints, length-delimited bytes, fixed32/64 — nothing schema-specific.
import { MalformedProtobufError } from './errors.js';

export const WireType = { Varint: 0, Fixed64: 1, LengthDelimited: 2, StartGroup: 3, EndGroup: 4, Fixed32: 5 } as const;

export interface FieldTag { field: number; wireType: number; offset: number }

const MAX_FIELD_NUMBER = 2 ** 29 - 1;

/** A cursor over one message's bytes; `at` names the message in error texts (e.g. `Deployment.spec`). */
export class WireReader {
  private pos = 0;

  constructor(private readonly buf: Uint8Array, private readonly at = 'message') {}

  get offset(): number { return this.pos; }

  done(): boolean { return this.pos >= this.buf.length; }

  tag(): FieldTag {
    const offset = this.pos;
    const key = this.varint();
    const field = Number(key >> 3n);
    const wireType = Number(key & 7n);
    if (field < 1 || field > MAX_FIELD_NUMBER) throw this.fail(`invalid field number ${field}`, offset);
    if (wireType === WireType.StartGroup || wireType === WireType.EndGroup || wireType > WireType.Fixed32) {
      throw this.fail(`unsupported wire type ${wireType} for field ${field}`, offset);
    }
    return { field, wireType, offset };
  }

  /** A base-128 varint as an unsigned 64-bit value (bigint: int64 fields may exceed 2^53). */
  varint(): bigint {
    const start = this.pos;
    let result = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) throw this.fail('truncated varint', start);
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << BigInt(7 * i);
      if (b < 0x80) {
        if (i === 9 && b > 1) throw this.fail('varint overflows 64 bits', start);
        return result;
      }
    }
    throw this.fail('varint longer than 10 bytes', start);
  }

  /** The payload of a length-delimited field (a view, not a copy). */
  bytes(): Uint8Array {
    const start = this.pos;
    const len = this.varint();
    const left = this.buf.length - this.pos;
    if (len > BigInt(left)) throw this.fail(`length ${len} runs past the end of the data (${left} byte${left === 1 ? '' : 's'} left)`, start);
    const out = this.buf.subarray(this.pos, this.pos + Number(len));
    this.pos += Number(len);
    return out;
  }

  /** Steps over a field's value of the given wire type. */
  skip(wireType: number): void {
    switch (wireType) {
      case WireType.Varint: this.varint(); return;
      case WireType.Fixed64: this.take(8); return;
      case WireType.LengthDelimited: this.bytes(); return;
      case WireType.Fixed32: this.take(4); return;
      default: throw this.fail(`cannot skip wire type ${wireType}`, this.pos);
    }
  }

  fail(what: string, offset: number): MalformedProtobufError {
    return new MalformedProtobufError(`malformed protobuf in ${this.at} at byte ${offset}: ${what}`);
  }

  private take(n: number): void {
    if (this.buf.length - this.pos < n) throw this.fail(`truncated ${n * 8}-bit fixed value`, this.pos);
    this.pos += n;
  }
}

/** Reinterprets a varint as the signed 32-bit value proto's int32 encodes (negatives are sign-extended to 10 bytes). */
export function toInt32(v: bigint): number {
  return Number(BigInt.asIntN(32, v));
}

/** Reinterprets a varint as a signed 64-bit value. */
export function toInt64(v: bigint): bigint {
  return BigInt.asIntN(64, v);
}
