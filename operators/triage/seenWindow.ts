import { flatString } from "../ingress/frames/flatString.js";
import { decodeDigits, digitsFor, encodeDigits, ID_HASH_CHARS } from "./idHash.js";
import { MAX_SEEN, packedSeenHeader } from "./seenIds.js";

/** Below this many ids a window is small: decoded afresh per decision (bounded work) and its string kept flat. */
export const SMALL_WINDOW = 64;

/** Counts the remembered ids one decision touches (decoded, encoded, dropped, looked up): what "O(1)" is pinned on. */
export interface SeenWork {
  entries: number;
}

/**
 * One conversation's dedupe window, decoded: ids in the order seen, a count per hash for O(1)
 * lookups, and the packed string (`seenIds.ts` format) kept in step, so a decision appends and drops
 * entries instead of re-packing them all.
 *
 * The packed string may be non-canonical: its base is at or before the oldest entry, and the offset
 * width leaves headroom (`window + window/8`), so appends fit for a while after a re-encode. Any
 * reader of the format (older versions included) reads it the same. A re-encode (O(n)) happens only
 * when an append does not fit; with a clock that only moves forward each id is re-encoded a bounded
 * number of times (≤ 10 for the default hour), so a decision is O(1) amortised. After the clock steps
 * back, ids are out of time order until the older ones leave, and expiring them scans the window.
 *
 * What is not O(1): dropping ids from the front of a string that was appended to copies it once
 * (V8 flattens a rope before slicing it: one native copy, ~8 KB at 1,000 ids), and a KV store
 * sends the whole string.
 *
 * Mutable, so it belongs to exactly one state at a time (`admit` hands it from its input to its output).
 */
export class SeenWindow {
  #hashes: string[] = [];
  #ats: number[] = [];
  #head = 0;
  readonly #live = new Map<string, number>();
  /** Adjacent pairs out of time order; 0 means expired entries are a prefix. */
  #inversions = 0;
  /** At or below every remembered time (exact after a scan; a lower bound otherwise). */
  #minAt = Infinity;
  #base = 0;
  #width = 1;
  #body = "";
  /** Whether the packed string differs from the one this window was decoded from. */
  #changed = false;

  private constructor(readonly windowSecs: number) {}

  /** The window `packed` holds (`undefined`: none). A malformed string reads as empty, and as a change. */
  static decode(packed: string | undefined, windowSecs: number, work: SeenWork): SeenWindow {
    const window = new SeenWindow(windowSecs);
    if (packed === undefined) return window;
    const header = packedSeenHeader(packed);
    if (header === undefined) {
      window.#changed = true;
      return window;
    }
    const { base, width, bodyStart } = header;
    const size = ID_HASH_CHARS + width;
    for (let at = bodyStart; at < packed.length; at += size) {
      window.#push(packed.slice(at, at + ID_HASH_CHARS), base + (decodeDigits(packed.slice(at + ID_HASH_CHARS, at + size)) as number));
    }
    work.entries += window.size;
    window.#base = base;
    window.#width = width;
    window.#body = packed.slice(bodyStart);
    return window;
  }

  get size(): number {
    return this.#ats.length - this.#head;
  }

  get changed(): boolean {
    return this.#changed;
  }

  /** Marks the current packed form as the state's own (the next decision starts unchanged). */
  settle(): void {
    this.#changed = false;
  }

  /** The packed form, or `undefined` when no id is remembered. */
  packed(): string | undefined {
    if (this.size === 0) return undefined;
    const packed = `${this.#base.toString(36)}.${this.#width}${this.#body}`;
    // A small window's string is what an idle conversation costs, so it is kept flat (a rope costs
    // a 32-byte node per piece); a big one carries a few nodes on kilobytes, and copying it per
    // decision would cost more than they do.
    return this.size < SMALL_WINDOW ? flatString(packed) : packed;
  }

  /** Whether `hash` is remembered. */
  has(hash: string, work: SeenWork): boolean {
    work.entries += 1;
    return (this.#live.get(hash) ?? 0) > 0;
  }

  /** Forgets every id seen before `cutoffSec` (strictly older). */
  expire(cutoffSec: number, work: SeenWork): void {
    if (this.size === 0 || this.#minAt >= cutoffSec) return;
    if (this.#inversions === 0) {
      while (this.size > 0 && (this.#ats[this.#head] as number) < cutoffSec) this.#dropFront(work);
      this.#minAt = this.size === 0 ? Infinity : (this.#ats[this.#head] as number);
      return;
    }
    // Out of time order (the clock stepped back): scan for the expired ones.
    const hashes = this.#hashes.slice(this.#head);
    const ats = this.#ats.slice(this.#head);
    work.entries += ats.length;
    if (ats.every((at) => at >= cutoffSec)) {
      this.#minAt = Math.min(...ats);
      return;
    }
    this.#reset();
    for (let i = 0; i < ats.length; i++) if ((ats[i] as number) >= cutoffSec) this.#push(hashes[i] as string, ats[i] as number);
    this.#changed = true;
    this.#encodeAll(work);
  }

  /** Remembers `hash` as seen at `atSec`, dropping the oldest beyond `MAX_SEEN`. */
  add(hash: string, atSec: number, work: SeenWork): void {
    const wasEmpty = this.size === 0;
    this.#push(hash, atSec);
    this.#changed = true;
    const offset = atSec - this.#base;
    if (wasEmpty || offset < 0 || offset >= 64 ** this.#width) this.#encodeAll(work);
    else {
      work.entries += 1;
      this.#body += hash + encodeDigits(offset, this.#width);
    }
    while (this.size > MAX_SEEN) this.#dropFront(work);
  }

  #push(hash: string, atSec: number): void {
    const last = this.#ats.length > this.#head ? (this.#ats[this.#ats.length - 1] as number) : undefined;
    if (last !== undefined && last > atSec) this.#inversions++;
    this.#hashes.push(hash);
    this.#ats.push(atSec);
    this.#live.set(hash, (this.#live.get(hash) ?? 0) + 1);
    if (atSec < this.#minAt) this.#minAt = atSec;
  }

  #dropFront(work: SeenWork): void {
    work.entries += 1;
    const hash = this.#hashes[this.#head] as string;
    const count = (this.#live.get(hash) as number) - 1;
    if (count === 0) this.#live.delete(hash);
    else this.#live.set(hash, count);
    if (this.size > 1 && (this.#ats[this.#head] as number) > (this.#ats[this.#head + 1] as number)) this.#inversions--;
    this.#head++;
    this.#body = this.#body.slice(ID_HASH_CHARS + this.#width);
    this.#changed = true;
    // Compact once half the arrays are dead: amortised O(1) per drop.
    if (this.#head >= 64 && this.#head * 2 >= this.#ats.length) {
      this.#hashes = this.#hashes.slice(this.#head);
      this.#ats = this.#ats.slice(this.#head);
      this.#head = 0;
    }
  }

  #reset(): void {
    this.#hashes = [];
    this.#ats = [];
    this.#head = 0;
    this.#live.clear();
    this.#inversions = 0;
    this.#minAt = Infinity;
  }

  /** Re-encodes every entry from the oldest time, with headroom for the window's appends. */
  #encodeAll(work: SeenWork): void {
    let min = Infinity;
    let max = -Infinity;
    for (let i = this.#head; i < this.#ats.length; i++) {
      const at = this.#ats[i] as number;
      if (at < min) min = at;
      if (at > max) max = at;
    }
    this.#minAt = min;
    if (this.size === 0) {
      this.#body = "";
      return;
    }
    work.entries += this.size;
    this.#base = min;
    this.#width = Math.min(9, digitsFor(Math.max(max - min, this.windowSecs + Math.ceil(this.windowSecs / 8))));
    const pieces: string[] = [];
    for (let i = this.#head; i < this.#ats.length; i++) pieces.push((this.#hashes[i] as string) + encodeDigits((this.#ats[i] as number) - min, this.#width));
    this.#body = pieces.join(""); // one flat string, not a rope of a node per id
  }
}
