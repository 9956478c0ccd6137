import { randomBytes } from "node:crypto";
import { MsgIdIndex } from "./msgIdIndex.js";
import { MsgIdRing } from "./msgIdRing.js";

/** Anything that tells the time in milliseconds, such as an RxJS scheduler. */
export interface Clock {
  now(): number;
}

export interface DedupeWindowOptions {
  /** Where the index's hash seeds come from (default: random bits). */
  readonly seed?: () => number;
  /** Makes an index for a seed (default: `MsgIdIndex`; a test may give one that hashes badly). */
  readonly index?: (seed: number) => MsgIdIndex;
}

/** Fresh seeds tried for an index before long probes are accepted as they are (correct, only slower). */
const MAX_RESEEDS = 3;

/**
 * The msgIds persisted during the last `windowMs`, like JetStream's duplicate window: one `claim`
 * per append, O(1) expected, with no object per entry.
 *
 * Entries sit in time order in a `MsgIdRing` (chunks of parallel arrays), so expiry takes them off
 * the front and never looks at a live one. A `MsgIdIndex` finds an entry by its hash and confirms
 * it by the msgId itself, so two msgIds that share a hash are never taken for one another. Both
 * grow in small pieces. A JS Map cost 0.7–2 µs per append once the window held a few hundred
 * thousand msgIds, plus an object per entry for the time order; here a claim reads a cache line
 * of the index and touches a string only when the hash matches.
 *
 * The hash is seeded with random bits, and an index whose probes grow long is rebuilt on a fresh
 * seed, so msgIds chosen to collide cannot turn appends into scans.
 */
export class DedupeWindow {
  readonly #clock: Clock;
  readonly #windowMs: number;
  readonly #seed: () => number;
  readonly #newIndex: (seed: number) => MsgIdIndex;
  readonly #ring = new MsgIdRing();
  #index: MsgIdIndex;

  constructor(clock: Clock, windowMs: number, options: DedupeWindowOptions = {}) {
    this.#clock = clock;
    this.#windowMs = windowMs;
    this.#seed = options.seed ?? randomSeed;
    this.#newIndex = options.index ?? ((seed) => new MsgIdIndex(seed));
    this.#index = this.#newIndex(this.#seed());
  }

  /** How many msgIds the window holds now (expired ones go at the next `claim`). */
  get size(): number {
    return this.#ring.size;
  }

  /**
   * The sequence first stored under `msgId` while that is still inside the window; otherwise
   * `undefined`, and `msgId` is remembered from now on under `seq` (the sequence the caller is about
   * to store it with). One look at the clock, one pass over the msgId's characters.
   */
  claim(msgId: string, seq: number): number | undefined {
    const now = this.#clock.now();
    this.#expire(now);
    // Hashing reads every character, which flattens a rope in place: the string kept is one flat copy.
    const hash = this.#index.hash(msgId);
    const found = this.#index.find(hash, msgId, this.#ring);
    if (found !== 0) return this.#ring.seqOf(found);
    const ref = this.#ring.push(msgId, now, seq, hash);
    if (!this.#index.insert(hash, ref)) this.#reseed();
    return undefined;
  }

  /**
   * Remembers `msgId` under `seq` as stored at `at` (a restart's restore from the journal): no
   * check, no expiry. Calls must come oldest first, before any `claim` at a later time.
   */
  restore(msgId: string, seq: number, at: number): void {
    const hash = this.#index.hash(msgId);
    const ref = this.#ring.push(msgId, at, seq, hash);
    if (!this.#index.insert(hash, ref)) this.#reseed();
  }

  /** Forgets what the last `claim` remembered: its message could not be stored after all. */
  forgetNewest(): void {
    if (this.#ring.size === 0) return;
    this.#index.remove(this.#ring.newestHash(), this.#ring.newestRef());
    this.#ring.pop();
  }

  /** Calls `each` with the msgIds the window holds (expired ones not yet dropped included), newest first, until it returns false. */
  forEachNewest(each: (msgId: string, at: number, seq: number) => boolean): void {
    this.#ring.forEachNewest(each);
  }

  #expire(now: number): void {
    const cutoff = now - this.#windowMs;
    const ring = this.#ring;
    for (let at = ring.oldestAt(); at !== undefined && at <= cutoff; at = ring.oldestAt()) {
      this.#index.remove(ring.oldestHash(), ring.oldestRef());
      ring.shift();
    }
  }

  /** A new index for the ring as it is, on a fresh seed: what undoes a run of colliding hashes. */
  #reseed(): void {
    for (let attempt = 1; ; attempt++) {
      const index = this.#newIndex(this.#seed());
      let short = true;
      this.#ring.rehash((ref, msgId) => {
        const hash = index.hash(msgId);
        short = index.insert(hash, ref) && short;
        return hash;
      });
      // Past a few seeds the probes are accepted as they are: lookups stay correct, only slower.
      if (short || attempt >= MAX_RESEEDS) {
        this.#index = index;
        return;
      }
    }
  }
}

function randomSeed(): number {
  return randomBytes(4).readUInt32LE(0);
}
