/** Protocol Buffers wire format: just enough to walk fields of a message. */

export interface WireField {
  n: number;
  wire: 0 | 1 | 2 | 5;
  /** varint (as bigint), fixed64/fixed32 raw bytes, or length-delimited bytes. */
  value: bigint | Uint8Array;
}

export class WireError extends Error {}

export function readFields(buf: Uint8Array): WireField[] {
  const out: WireField[] = [];
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (i >= buf.length) throw new WireError("truncated varint");
      const b = buf[i++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 70n) throw new WireError("varint too long");
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const n = key >>> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ n, wire, value: varint() });
    else if (wire === 1) {
      out.push({ n, wire, value: buf.subarray(i, i + 8) });
      i += 8;
    } else if (wire === 2) {
      const len = Number(varint());
      if (i + len > buf.length) throw new WireError("truncated field");
      out.push({ n, wire, value: buf.subarray(i, i + len) });
      i += len;
    } else if (wire === 5) {
      out.push({ n, wire, value: buf.subarray(i, i + 4) });
      i += 4;
    } else throw new WireError(`unsupported wire type ${wire}`);
  }
  return out;
}

/** Unpacks a packed repeated varint field. */
export function readPackedVarints(buf: Uint8Array): bigint[] {
  const out: bigint[] = [];
  let i = 0;
  while (i < buf.length) {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[i++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
    }
    out.push(result);
  }
  return out;
}

/** Two's-complement view of a varint as a signed 64-bit number. */
export function toSigned(v: bigint): number {
  return Number(BigInt.asIntN(64, v));
}
