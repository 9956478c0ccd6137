import type { KV } from "@nats-io/kv";
import type { Observable } from "rxjs";
import { isTriageState, lastActivityMs, type TriageState } from "../../../operators/triage/triageState.js";
import type { TriageEntry, TriageStore } from "../../../operators/triage/triageStore.js";
import { StateStoreError } from "../errors.js";
import { fromKvKey, kvKey } from "./kvKey.js";
import { kvOperation } from "./kvOperation.js";
import { isCasConflict, KnownRecords, liveEntry, parseEntry, recordBytes, type KvWrites, type RecordBucket } from "./storedRecord.js";

/**
 * Triage state in a NATS KV bucket shared by every worker: `read` is `get`, `compareAndSet` is
 * `create` (no expected revision) or `update(key, value, revision)`, and `sweep` deletes with the
 * revision it read, so a conversation written since is never swept. Revisions are the bucket
 * stream's sequence numbers, never reused, so a stale revision cannot match a re-created key.
 *
 * A read that finds the revision this process last wrote or read returns that same state object
 * instead of parsing the value again, so `admit` finds its decoded dedupe window (kept per state)
 * and a decision costs O(1) in remembered ids. Only a value another worker wrote is parsed.
 */
/** Conversations whose last state this process keeps to skip re-parsing (and re-decoding) it. */
const KNOWN_CONVERSATIONS = 1024;

export class KvTriageStore implements TriageStore {
  readonly #bucket: RecordBucket<TriageState>;
  /** The state last written or read per encoded key, at its revision. */
  readonly #known = new KnownRecords<TriageState>(KNOWN_CONVERSATIONS);

  /** `writes`: how compare-and-set writes reach the bucket (default: through `kv`). */
  constructor(kv: KV, options: { readonly writes?: KvWrites } = {}) {
    this.#bucket = { kv, writes: options.writes ?? kv, store: "triage", isValue: isTriageState };
  }

  read(key: string): Observable<TriageEntry | undefined> {
    return kvOperation(async () => {
      const encoded = kvKey(key);
      const known = this.#known;
      const entry = await this.#io("read", key, () => liveEntry(this.#bucket.kv, encoded));
      if (entry === undefined) {
        known.delete(encoded);
        return undefined;
      }
      const last = known.get(encoded);
      if (last?.revision === entry.revision) return { state: last.value, revision: entry.revision };
      const stored = parseEntry(this.#bucket, "read", key, entry);
      known.set(encoded, stored);
      return { state: stored.value, revision: stored.revision };
    });
  }

  compareAndSet(key: string, state: TriageState, expectedRevision: number | undefined): Observable<boolean> {
    return kvOperation(async () => {
      const { writes } = this.#bucket;
      if (expectedRevision !== undefined && expectedRevision <= 0) return false; // no entry has such a revision
      const encoded = kvKey(key);
      try {
        const revision =
          expectedRevision === undefined ? await writes.create(encoded, recordBytes(state)) : await writes.update(encoded, recordBytes(state), expectedRevision);
        // Remembered only when another worker could read it back as this very state.
        if (isTriageState(state)) this.#known.set(encoded, { value: state, revision });
        else this.#known.delete(encoded);
        return true;
      } catch (err) {
        if (isCasConflict(err)) return false;
        throw new StateStoreError("triage", "compareAndSet", key, { cause: err });
      }
    });
  }

  sweep(cutoffMs: number): Observable<number> {
    return kvOperation(async () => {
      const { kv } = this.#bucket;
      const keys = await this.#io("sweep", undefined, async () => {
        const listed: string[] = [];
        for await (const encoded of await kv.keys()) listed.push(encoded);
        return listed;
      });
      let removed = 0;
      for (const encoded of keys) {
        const key = fromKvKey(encoded) ?? encoded;
        const entry = await this.#io("sweep", key, () => liveEntry(kv, encoded));
        if (entry === undefined) continue;
        const newest = lastActivityMs(parseEntry(this.#bucket, "sweep", key, entry).value);
        if (newest !== undefined && newest >= cutoffMs) continue;
        const deleted = await this.#io("sweep", key, () =>
          kv.delete(encoded, { previousSeq: entry.revision }).then(
            () => true,
            // Written since it was read: active again, so it stays.
            (err: unknown) => (isCasConflict(err) ? false : Promise.reject(err)),
          ),
        );
        if (deleted) {
          removed++;
          this.#known.delete(encoded);
        }
      }
      return removed;
    });
  }

  async #io<T>(operation: string, key: string | undefined, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw new StateStoreError("triage", operation, key, { cause: err });
    }
  }
}
