// Compact, stable digests for triage state that is shared between workers and kept in NATS KV.
// Changing anything here changes stored values: a running deployment would forget its dedupe window.

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const TWO_32 = 0x1_0000_0000;

/** Characters in an `idHash`. */
export const ID_HASH_CHARS = 6;

// 64-bit arithmetic on two uint32 halves: no BigInt (allocation per step) on the triage hot path.
// The scratch pair holds the last result; single-threaded, never re-entered.
let hi = 0;
let lo = 0;

/** (hi, lo) = (hi, lo) × (bHi, bLo) mod 2⁶⁴. */
function multiply(bHi: number, bLo: number): void {
  // lo × bLo in full (64 bits) from 16-bit limbs; the cross terms only touch the high word.
  const a0 = lo & 0xffff;
  const a1 = lo >>> 16;
  const b0 = bLo & 0xffff;
  const b1 = bLo >>> 16;
  const mid = a0 * b1 + a1 * b0; // < 2³³, exact
  const low = a0 * b0 + (mid % 0x1_0000) * 0x1_0000; // < 2³³, exact
  const high = a1 * b1 + Math.floor(mid / 0x1_0000) + Math.floor(low / TWO_32);
  hi = (high + Math.imul(hi, bLo) + Math.imul(lo, bHi)) >>> 0;
  lo = low >>> 0;
}

/** (hi, lo) ^= (hi, lo) >> 33. */
function foldHigh(): void {
  lo = (lo ^ (hi >>> 1)) >>> 0;
}

/** One FNV-1a 64 step: xor the byte, multiply by 0x100000001b3 (= 2⁴⁰ + 0x1b3, so two small products). */
function fnvByte(byte: number): void {
  const x = (lo ^ byte) >>> 0;
  const low = x * 0x1b3; // < 2⁴¹, exact
  hi = (Math.imul(hi, 0x1b3) + (x << 8) + Math.floor(low / TWO_32)) >>> 0;
  lo = low >>> 0;
}

/**
 * The top 36 bits of FNV-1a 64 over the UTF-8 bytes, mixed with MurmurHash3's 64-bit finalizer (so
 * ids differing in their last character differ everywhere), as 6 base64url chars. With 100 ids
 * remembered, an unrelated id collides with one of them about once in 7 × 10⁸ events.
 */
export function idHash(text: string): string {
  hi = 0xcbf29ce4;
  lo = 0x84222325;
  // UTF-8 as TextEncoder writes it (a lone surrogate becomes U+FFFD), without allocating the bytes.
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        i++;
      } else code = 0xfffd;
    }
    if (code < 0x80) fnvByte(code);
    else if (code < 0x800) {
      fnvByte(0xc0 | (code >> 6));
      fnvByte(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      fnvByte(0xe0 | (code >> 12));
      fnvByte(0x80 | ((code >> 6) & 0x3f));
      fnvByte(0x80 | (code & 0x3f));
    } else {
      fnvByte(0xf0 | (code >> 18));
      fnvByte(0x80 | ((code >> 12) & 0x3f));
      fnvByte(0x80 | ((code >> 6) & 0x3f));
      fnvByte(0x80 | (code & 0x3f));
    }
  }
  foldHigh();
  multiply(0xff51afd7, 0xed558ccd);
  foldHigh();
  multiply(0xc4ceb9fe, 0x1a85ec53);
  foldHigh();
  // The top 36 bits: all of hi and the top 4 of lo.
  return encodeDigits(hi * 16 + (lo >>> 28), ID_HASH_CHARS);
}

/** `value` (a non-negative safe integer) in base64url, left-padded to `width` chars; throws when it does not fit. */
export function encodeDigits(value: number, width: number): string {
  let rest = value;
  let out = "";
  for (let i = 0; i < width; i++) {
    out = ALPHABET.charAt(rest % 64) + out;
    rest = Math.floor(rest / 64);
  }
  if (rest !== 0 || !Number.isSafeInteger(value) || value < 0) throw new RangeError(`${value} does not fit in ${width} base64url digits`);
  return out;
}

/** The value of base64url digits, or `undefined` when `text` holds a character outside the alphabet. */
export function decodeDigits(text: string): number | undefined {
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const digit = code < 128 ? (DIGIT_OF[code] as number) : -1;
    if (digit < 0) return undefined;
    value = value * 64 + digit;
  }
  return value;
}

/** Each ASCII code's base64url digit, or -1. */
const DIGIT_OF = Int8Array.from({ length: 128 }, (_, code) => ALPHABET.indexOf(String.fromCharCode(code)));

/** How many base64url digits `value` (≥ 0) needs; at least one. */
export function digitsFor(value: number): number {
  let width = 1;
  for (let limit = 64; value >= limit; limit *= 64) width++;
  return width;
}
