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

/** The entries, in the order they were seen; `[]` when absent; `undefined` when `packed` is malformed. */
export function unpackSeen(packed: string | undefined): SeenEntry[] | undefined {
  if (packed === undefined) return [];
  const match = PACKED.exec(packed);
  if (match === null) return undefined;
  const base = Number.parseInt(match[1] as string, 36);
  const width = Number(match[2]);
  const body = match[3] as string;
  const size = ID_HASH_CHARS + width;
  if (!Number.isSafeInteger(base) || body.length === 0 || body.length % size !== 0) return undefined;
  const entries: SeenEntry[] = [];
  for (let at = 0; at < body.length; at += size) {
    const atSec = base + (decodeDigits(body.slice(at + ID_HASH_CHARS, at + size)) as number);
    if (!Number.isSafeInteger(atSec)) return undefined;
    entries.push({ hash: body.slice(at, at + ID_HASH_CHARS), atSec });
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
