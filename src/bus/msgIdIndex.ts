import type { MsgIdRing } from "./msgIdRing.js";

/** A seeded 32-bit hash of a msgId. */
export type MsgIdHash = number;

/** Segments, chosen by a hash's top bits: each grows on its own, so growing never rebuilds the whole index at once. */
const SEGMENT_BITS = 8;
const SEGMENTS = 1 << SEGMENT_BITS;
/** Slots in a new or shrunk segment (a power of two). */
const MIN_SLOTS = 8;
/** A probe longer than this on insert says the hashes bunch up: the owner rebuilds on a fresh seed. */
const MAX_PROBE = 64;

/**
 * Where a msgId was stored, by its hash: open addressing with linear probing in 256 segments, each
 * an `Int32Array` of `[hash, ref]` slots kept at most half full, so a probe reads one cache line and
 * a msgId is compared only when the hash matches. A segment doubles (or halves) alone, in
 * a few kilobytes: growing never touches a large block of fresh memory, which costs page faults
 * and cache misses by the megabyte. Removal shifts the probe run back (no tombstones).
 *
 * A `ref` names an entry of the `MsgIdRing` the msgIds are kept in. The hash is Jenkins' one-at-a-time over UTF-16 code units from a seed, the construction V8
 * itself long used for its string hashes.
 */
export class MsgIdIndex {
  readonly seed: number;
  readonly #segments: Int32Array[] = [];
  /** Live entries per segment. */
  readonly #counts = new Int32Array(SEGMENTS);

  constructor(seed: number) {
    this.seed = seed | 0;
    for (let i = 0; i < SEGMENTS; i++) this.#segments.push(new Int32Array(2 * MIN_SLOTS));
  }

  hash(msgId: string): MsgIdHash {
    let h = this.seed;
    for (let i = 0; i < msgId.length; i++) {
      h = (h + msgId.charCodeAt(i)) | 0;
      h = (h + (h << 10)) | 0;
      h ^= h >>> 6;
    }
    h = (h + (h << 3)) | 0;
    h ^= h >>> 11;
    return (h + (h << 15)) | 0;
  }

  /** The ref under `hash` whose msgId (in `ring`) is `msgId`, or 0. */
  find(hash: MsgIdHash, msgId: string, ring: Pick<MsgIdRing, "msgIdOf">): number {
    const slots = this.#segments[hash >>> (32 - SEGMENT_BITS)] as Int32Array;
    const mask = (slots.length >> 1) - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const ref = slots[2 * slot + 1] as number;
      if (ref === 0) return 0;
      if (slots[2 * slot] === hash && ring.msgIdOf(ref) === msgId) return ref;
    }
  }

  /** Indexes `ref` under `hash`. False when its probe ran past `MAX_PROBE`: it is indexed all the same, and the owner should rebuild on a fresh seed. */
  insert(hash: MsgIdHash, ref: number): boolean {
    const segment = hash >>> (32 - SEGMENT_BITS);
    const count = (this.#counts[segment] as number) + 1;
    this.#counts[segment] = count;
    let slots = this.#segments[segment] as Int32Array;
    if (count * 4 > slots.length) slots = this.#resize(segment, slots.length * 2);
    return place(slots, hash, ref);
  }

  /** Forgets `ref`, indexed under `hash`, closing the gap it leaves in its probe run. */
  remove(hash: MsgIdHash, ref: number): void {
    const segment = hash >>> (32 - SEGMENT_BITS);
    const slots = this.#segments[segment] as Int32Array;
    const mask = (slots.length >> 1) - 1;
    let gap = hash & mask;
    while (slots[2 * gap + 1] !== ref) gap = (gap + 1) & mask;
    // Backward shift: each later entry of the run moves into the gap unless that would put it
    // before its own home slot.
    for (let next = (gap + 1) & mask; slots[2 * next + 1] !== 0; next = (next + 1) & mask) {
      const home = (slots[2 * next] as number) & mask;
      // Whether `home` lies cyclically in (gap, next]: then the entry must stay where it is.
      const stays = gap <= next ? gap < home && home <= next : gap < home || home <= next;
      if (stays) continue;
      slots[2 * gap] = slots[2 * next] as number;
      slots[2 * gap + 1] = slots[2 * next + 1] as number;
      gap = next;
    }
    slots[2 * gap + 1] = 0;
    const count = (this.#counts[segment] as number) - 1;
    this.#counts[segment] = count;
    // A burst's room is given back once the segment has mostly drained.
    if (slots.length > 2 * MIN_SLOTS && count * 16 <= slots.length) this.#resize(segment, slots.length / 2);
  }

  /** The segment re-laid in `length` cells (2 per slot), its entries placed anew. */
  #resize(segment: number, length: number): Int32Array {
    const old = this.#segments[segment] as Int32Array;
    const slots = new Int32Array(length);
    for (let cell = 0; cell < old.length; cell += 2) {
      const ref = old[cell + 1] as number;
      if (ref !== 0) place(slots, old[cell] as number, ref);
    }
    this.#segments[segment] = slots;
    return slots;
  }
}

/** Puts `[hash, ref]` in its probe run's first free slot; false when that run was longer than `MAX_PROBE`. */
function place(slots: Int32Array, hash: MsgIdHash, ref: number): boolean {
  const mask = (slots.length >> 1) - 1;
  let slot = hash & mask;
  let probe = 0;
  while (slots[2 * slot + 1] !== 0) {
    slot = (slot + 1) & mask;
    probe += 1;
  }
  slots[2 * slot] = hash;
  slots[2 * slot + 1] = ref;
  return probe <= MAX_PROBE;
}
