/** Entries per chunk (a power of two). */
const CHUNK = 1024;
/** Refs count entry numbers modulo this (refs are positive int32s); far more than a window ever holds. */
const REF_SPAN = 0x7fffffff;

/** One chunk of entries: parallel arrays, so an entry is no object. */
interface Chunk {
  readonly msgIds: (string | undefined)[];
  readonly at: Float64Array;
  readonly seqs: Float64Array;
  readonly hashes: Int32Array;
}

/**
 * `DedupeWindow`'s entries in time order: a queue of fixed chunks, appended at the tail and taken
 * off the head, so an entry is never moved and the queue never copies itself to grow. A drained
 * chunk is kept for the next one the tail needs (a steady window allocates nothing).
 *
 * Entries are numbered in append order; a `ref` is the number mod 2³¹ − 1, plus one (never 0), the
 * int32 an index can hold. It names one live entry as long as fewer than 2³¹ − 1 are live.
 */
export class MsgIdRing {
  readonly #chunks: (Chunk | undefined)[] = [];
  /** Index in `#chunks` of the head's chunk (chunks before it are drained; compacted now and then). */
  #first = 0;
  #spare: Chunk | undefined;
  /** Number of the oldest live entry, and of the next one appended. */
  #head = 0;
  #tail = 0;

  get size(): number {
    return this.#tail - this.#head;
  }

  /** Appends an entry; returns its ref. */
  push(msgId: string, at: number, seq: number, hash: number): number {
    const n = this.#tail;
    const offset = n % CHUNK;
    if (offset === 0) this.#chunks.push(this.#spare ?? newChunk());
    if (offset === 0) this.#spare = undefined;
    const chunk = this.#chunks[this.#chunks.length - 1] as Chunk;
    chunk.msgIds[offset] = msgId;
    chunk.at[offset] = at;
    chunk.seqs[offset] = seq;
    chunk.hashes[offset] = hash;
    this.#tail = n + 1;
    return (n % REF_SPAN) + 1;
  }

  /** The oldest entry's time; `undefined` when empty. */
  oldestAt(): number | undefined {
    if (this.#tail === this.#head) return undefined;
    return (this.#chunks[this.#first] as Chunk).at[this.#head % CHUNK];
  }

  /** The oldest entry's ref. Only when not empty. */
  oldestRef(): number {
    return (this.#head % REF_SPAN) + 1;
  }

  /** The oldest entry's hash. Only when not empty. */
  oldestHash(): number {
    return (this.#chunks[this.#first] as Chunk).hashes[this.#head % CHUNK] as number;
  }

  /** Drops the oldest entry. Only when not empty. */
  shift(): void {
    const offset = this.#head % CHUNK;
    (this.#chunks[this.#first] as Chunk).msgIds[offset] = undefined; // the string goes with the entry
    this.#head += 1;
    // The head left its chunk: no live entry is in it any more.
    if (offset === CHUNK - 1) this.#dropFirst();
  }

  /** The newest entry's ref. Only when not empty. */
  newestRef(): number {
    return ((this.#tail - 1) % REF_SPAN) + 1;
  }

  /** The newest entry's hash. Only when not empty. */
  newestHash(): number {
    return this.#chunkOf(this.#tail - 1).hashes[(this.#tail - 1) % CHUNK] as number;
  }

  /** Drops the newest entry (one just pushed whose message could not be stored). Only when not empty. */
  pop(): void {
    const n = this.#tail - 1;
    this.#chunkOf(n).msgIds[n % CHUNK] = undefined;
    this.#tail = n;
    // Its chunk is empty now: `push` adds one at this offset, so this one goes (kept as the spare).
    if (n % CHUNK === 0) this.#spare = this.#chunks.pop();
  }

  /** Calls `each` with the live entries, newest first, until it returns false. */
  forEachNewest(each: (msgId: string, at: number, seq: number) => boolean): void {
    for (let n = this.#tail - 1; n >= this.#head; n--) {
      const chunk = this.#chunkOf(n);
      if (!each(chunk.msgIds[n % CHUNK] as string, chunk.at[n % CHUNK] as number, chunk.seqs[n % CHUNK] as number)) return;
    }
  }

  msgIdOf(ref: number): string | undefined {
    const n = this.#numberOf(ref);
    return this.#chunkOf(n).msgIds[n % CHUNK];
  }

  seqOf(ref: number): number {
    const n = this.#numberOf(ref);
    return this.#chunkOf(n).seqs[n % CHUNK] as number;
  }

  /** Calls `rehash` with every live entry's ref and msgId, oldest first, and keeps the hash it returns (a new index seed). */
  rehash(rehash: (ref: number, msgId: string) => number): void {
    for (let n = this.#head; n < this.#tail; n++) {
      const chunk = this.#chunkOf(n);
      chunk.hashes[n % CHUNK] = rehash((n % REF_SPAN) + 1, chunk.msgIds[n % CHUNK] as string);
    }
  }

  /** The live entry number `ref` names. */
  #numberOf(ref: number): number {
    return this.#head + ((ref - 1 - (this.#head % REF_SPAN) + REF_SPAN) % REF_SPAN);
  }

  #chunkOf(n: number): Chunk {
    return this.#chunks[this.#first + Math.floor(n / CHUNK) - Math.floor(this.#head / CHUNK)] as Chunk;
  }

  #dropFirst(): void {
    this.#spare = this.#chunks[this.#first];
    this.#chunks[this.#first] = undefined;
    this.#first += 1;
    if (this.#first >= 64 && this.#first * 2 >= this.#chunks.length) {
      this.#chunks.splice(0, this.#first);
      this.#first = 0;
    }
  }
}

function newChunk(): Chunk {
  return { msgIds: new Array<string | undefined>(CHUNK).fill(undefined), at: new Float64Array(CHUNK), seqs: new Float64Array(CHUNK), hashes: new Int32Array(CHUNK) };
}
