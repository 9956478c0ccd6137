// Compact, stable digests for triage state that is shared between workers and kept in NATS KV.
// Changing anything here changes stored values: a running deployment would forget its dedupe window.

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;
const MASK64 = (1n << 64n) - 1n;
const FMIX1 = 0xff51afd7ed558ccdn;
const FMIX2 = 0xc4ceb9fe1a85ec53n;
const encoder = new TextEncoder();

/** Characters in an `idHash`. */
export const ID_HASH_CHARS = 6;

/**
 * The top 36 bits of FNV-1a 64 over the UTF-8 bytes, mixed with MurmurHash3's 64-bit finalizer (so
 * ids differing in their last character differ everywhere), as 6 base64url chars. With 100 ids
 * remembered, an unrelated id collides with one of them about once in 7 × 10⁸ events.
 */
export function idHash(text: string): string {
  let hash = FNV64_OFFSET;
  for (const byte of encoder.encode(text)) hash = ((hash ^ BigInt(byte)) * FNV64_PRIME) & MASK64;
  hash ^= hash >> 33n;
  hash = (hash * FMIX1) & MASK64;
  hash ^= hash >> 33n;
  hash = (hash * FMIX2) & MASK64;
  hash ^= hash >> 33n;
  return encodeDigits(Number(hash >> 28n), ID_HASH_CHARS);
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
  for (const char of text) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) return undefined;
    value = value * 64 + digit;
  }
  return value;
}

/** How many base64url digits `value` (≥ 0) needs; at least one. */
export function digitsFor(value: number): number {
  let width = 1;
  for (let limit = 64; value >= limit; limit *= 64) width++;
  return width;
}
