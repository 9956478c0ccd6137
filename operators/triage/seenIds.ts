import { decodeDigits, digitsFor, encodeDigits, ID_HASH_CHARS } from "./idHash.js";

/** One event id in the dedupe window: its `idHash` and when it was seen (whole seconds since the epoch). */
export interface SeenEntry {
  readonly hash: string;
  readonly atSec: number;
}

/**
 * At most this many ids are remembered per conversation (the oldest go first). Only a flood of
 * distinct proactive events inside one window reaches it; it keeps a KV value under ~10 KB.
 */
export const MAX_SEEN = 1000;

// Packed form: `<base>.<w><entry>…`, base = the oldest second (base 36), w = offset width (1-9),
// entry = 6-char hash + offset from base in w base64url digits. 100 ids in an hour: ~820 chars.
const PACKED = /^(-?[0-9a-z]+)\.([1-9])([A-Za-z0-9_-]*)$/;

/** Where a well-formed packed string's entries start, and how they are encoded. */
export interface PackedSeenHeader {
  /** The second offsets count from. */
  readonly base: number;
  /** base64url digits per offset. */
  readonly width: number;
  /** Index of the first entry in the packed string. */
  readonly bodyStart: number;
}

/**
 * The header of `packed`, or `undefined` when `packed` is malformed (exactly when `unpackSeen`
 * says so). No per-entry work unless an offset could leave the safe-integer range.
 */
export function packedSeenHeader(packed: string): PackedSeenHeader | undefined {
  const match = PACKED.exec(packed);
  if (match === null) return undefined;
  const base = Number.parseInt(match[1] as string, 36);
  const width = Number(match[2]);
  const bodyStart = packed.length - (match[3] as string).length;
  const bodyLength = packed.length - bodyStart;
  const size = ID_HASH_CHARS + width;
  if (!Number.isSafeInteger(base) || bodyLength === 0 || bodyLength % size !== 0) return undefined;
  if (base + 64 ** width - 1 > Number.MAX_SAFE_INTEGER) {
    for (let at = bodyStart; at < packed.length; at += size) {
      if (!Number.isSafeInteger(base + (decodeDigits(packed.slice(at + ID_HASH_CHARS, at + size)) as number))) return undefined;
    }
  }
  return { base, width, bodyStart };
}

/** The entries, in the order they were seen; `[]` when absent; `undefined` when `packed` is malformed. */
export function unpackSeen(packed: string | undefined): SeenEntry[] | undefined {
  if (packed === undefined) return [];
  const header = packedSeenHeader(packed);
  if (header === undefined) return undefined;
  const { base, width, bodyStart } = header;
  const size = ID_HASH_CHARS + width;
  const entries: SeenEntry[] = [];
  for (let at = bodyStart; at < packed.length; at += size) {
    entries.push({ hash: packed.slice(at, at + ID_HASH_CHARS), atSec: base + (decodeDigits(packed.slice(at + ID_HASH_CHARS, at + size)) as number) });
  }
  return entries;
}

/** The packed form of `entries` (order kept), or `undefined` for none. */
export function packSeen(entries: readonly SeenEntry[]): string | undefined {
  if (entries.length === 0) return undefined;
  // The minimum, not the first: a clock that stepped back records an entry older than its predecessor.
  const base = Math.min(...entries.map((entry) => entry.atSec));
  const width = digitsFor(Math.max(...entries.map((entry) => entry.atSec - base)));
  const body = entries.map((entry) => entry.hash + encodeDigits(entry.atSec - base, width)).join("");
  return `${base.toString(36)}.${width}${body}`;
}
