import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import type { KV, KvEntry } from "@nats-io/kv";
import { StateConflictError, StateStoreError, type StateStoreName } from "../errors.js";
import type { RecordStep } from "../recordStep.js";
import { flatString } from "../../../operators/ingress/frames/flatString.js";
import { kvKey } from "./kvKey.js";

/** Compare-and-set attempts of one operation before it gives up with StateConflictError. */
export const STATE_MAX_ATTEMPTS = 10;

/** A JSON value as stored, and the revision it was read at. */
export interface Stored<T> {
  readonly value: T;
  readonly revision: number;
}

/**
 * The compare-and-set writes the record stores make, by encoded key; both resolve with the new
 * revision and reject with the client's `JetStreamApiError` when the key's last revision was not
 * the one named (`isCasConflict`). A nats.js `KV` is one; `BucketWrites` is the hot-path one.
 */
export interface KvWrites {
  /** Writes a key that has no live value (none, or a delete or purge marker). */
  create(key: string, value: Uint8Array): Promise<number>;
  update(key: string, value: Uint8Array, revision: number): Promise<number>;
}

/** One store's bucket (reads and deletes), its writes, the guard its JSON values must pass, and its name for errors. */
export interface RecordBucket<T> {
  readonly kv: KV;
  /** The bucket's compare-and-set writes: `kv` itself, or `BucketWrites` over it. */
  readonly writes: KvWrites;
  readonly store: StateStoreName;
  readonly isValue: (value: unknown) => value is T;
  /**
   * What this process last wrote (or read) per key. With it, `casUpdate` first writes without reading — over
   * its own last write, or creating a key it never saw — and reads only when that compare-and-set
   * fails: one round trip instead of two for records one worker owns (a turn's ledger entry).
   */
  readonly known?: KnownRecords<T>;
}

/**
 * The latest record this process wrote per encoded key, at most `max` (oldest forgotten first), the
 * key kept as a flat copy (`flatString`: `kvKey` builds a rope of a piece per character).
 */
export class KnownRecords<T> {
  readonly #records = new Map<string, Stored<T>>();
  constructor(readonly max = 10_000) {}

  get(encodedKey: string): Stored<T> | undefined {
    return this.#records.get(encodedKey);
  }

  set(encodedKey: string, stored: Stored<T>): void {
    this.#records.delete(encodedKey);
    this.#records.set(flatString(encodedKey), stored);
    if (this.#records.size > this.max) this.#records.delete(this.#records.keys().next().value as string);
  }

  delete(encodedKey: string): void {
    this.#records.delete(encodedKey);
  }
}

/** A record as the bucket stores it: JSON in UTF-8 (`Buffer.from`: the KV client would build a `TextEncoder` per write). */
export function recordBytes(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value), "utf8");
}

/** A lost compare-and-set: the key's last revision was not the one expected. */
export function isCasConflict(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/** The live entry under an encoded key; a delete or purge marker (what `get` returns after a delete) reads as none. */
export async function liveEntry(kv: KV, encodedKey: string): Promise<KvEntry | undefined> {
  const entry = await kv.get(encodedKey);
  return entry === null || entry.operation !== "PUT" ? undefined : entry;
}

/** Parses an entry's JSON; a value of an unknown shape is an error, never read as absent (a write would wipe it). */
export function parseEntry<T>(bucket: RecordBucket<T>, operation: string, key: string, entry: KvEntry): Stored<T> {
  let value: unknown;
  try {
    value = entry.json<unknown>();
  } catch (err) {
    throw new StateStoreError(bucket.store, operation, key, { cause: err });
  }
  if (!bucket.isValue(value)) {
    throw new StateStoreError(bucket.store, operation, key, { cause: new TypeError(`revision ${entry.revision} is not a ${bucket.store} record`) });
  }
  return { value, revision: entry.revision };
}

export interface CasOptions {
  /**
   * Nothing in this process writes the key after this write (the ledger's `complete`: a redelivery
   * reads first), so it is not remembered in `known`: one entry per event would only fill the map.
   */
  readonly final?: boolean;
}

/**
 * Reads `key`, lets `step` decide, writes its `next` record with the read revision (create when
 * there was no entry, else update, or a revision-checked delete for `null`) and retries the whole step when another writer
 * got there first. Resolves with the winning step's result. Rejects with StateStoreError (I/O or
 * a malformed value, the client's error as `cause`) or StateConflictError after `maxAttempts`.
 */
export async function casUpdate<T, R>(
  bucket: RecordBucket<T>,
  operation: string,
  key: string,
  step: (current: T | undefined) => RecordStep<T, R>,
  maxAttempts = STATE_MAX_ATTEMPTS,
  options: CasOptions = {},
): Promise<R> {
  const encoded = kvKey(key);
  const { known } = bucket;
  const remember = (stored: Stored<T>): void => {
    if (options.final === true) known?.delete(encoded);
    else known?.set(encoded, stored);
  };
  if (known !== undefined) {
    // The optimistic attempt: decide on what we last wrote (or on nothing), write, and let the
    // compare-and-set say whether that was still true. A step that writes nothing proves nothing: read.
    const guess = known.get(encoded);
    const { result, next } = step(guess?.value);
    if (next !== undefined && next !== null) {
      try {
        const json = recordBytes(next);
        const revision = guess === undefined ? await bucket.writes.create(encoded, json) : await bucket.writes.update(encoded, json, guess.revision);
        remember({ value: next, revision });
        return result;
      } catch (err) {
        if (!isCasConflict(err)) throw new StateStoreError(bucket.store, operation, key, { cause: err });
        known.delete(encoded);
      }
    }
  }
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    let raw: KvEntry | null;
    try {
      raw = await bucket.kv.get(encoded);
    } catch (err) {
      throw new StateStoreError(bucket.store, operation, key, { cause: err });
    }
    const current = raw !== null && raw.operation === "PUT" ? parseEntry(bucket, operation, key, raw) : undefined;
    const { result, next } = step(current?.value);
    if (next === undefined) return result;
    try {
      if (next !== null) {
        // A delete marker still holds the key's last revision: writing over it must name it.
        const json = recordBytes(next);
        const revision = raw === null ? await bucket.writes.create(encoded, json) : await bucket.writes.update(encoded, json, raw.revision);
        remember({ value: next, revision });
      } else if (current !== undefined) {
        await bucket.kv.delete(encoded, { previousSeq: current.revision });
        known?.delete(encoded);
      }
      return result;
    } catch (err) {
      if (!isCasConflict(err)) throw new StateStoreError(bucket.store, operation, key, { cause: err });
    }
  }
  throw new StateConflictError(bucket.store, operation, key, maxAttempts);
}
