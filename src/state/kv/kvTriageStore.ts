import type { KV } from "@nats-io/kv";
import { defer, type Observable } from "rxjs";
import { isTriageState, lastActivityMs, type TriageState } from "../../../operators/triage/triageState.js";
import type { TriageEntry, TriageStore } from "../../../operators/triage/triageStore.js";
import { StateStoreError } from "../errors.js";
import { fromKvKey, kvKey } from "./kvKey.js";
import { isCasConflict, liveEntry, parseEntry, type RecordBucket } from "./storedRecord.js";

/**
 * Triage state in a NATS KV bucket shared by every worker: `read` is `get`, `compareAndSet` is
 * `create` (no expected revision) or `update(key, value, revision)`, and `sweep` deletes with the
 * revision it read, so a conversation written since is never swept. Revisions are the bucket
 * stream's sequence numbers, never reused, so a stale revision cannot match a re-created key.
 */
export class KvTriageStore implements TriageStore {
  readonly #bucket: RecordBucket<TriageState>;

  constructor(kv: KV) {
    this.#bucket = { kv, store: "triage", isValue: isTriageState };
  }

  read(key: string): Observable<TriageEntry | undefined> {
    return defer(async () => {
      const entry = await this.#io("read", key, () => liveEntry(this.#bucket.kv, kvKey(key)));
      if (entry === undefined) return undefined;
      const { value, revision } = parseEntry(this.#bucket, "read", key, entry);
      return { state: value, revision };
    });
  }

  compareAndSet(key: string, state: TriageState, expectedRevision: number | undefined): Observable<boolean> {
    return defer(async () => {
      const { kv } = this.#bucket;
      if (expectedRevision !== undefined && expectedRevision <= 0) return false; // no entry has such a revision
      try {
        if (expectedRevision === undefined) await kv.create(kvKey(key), JSON.stringify(state));
        else await kv.update(kvKey(key), JSON.stringify(state), expectedRevision);
        return true;
      } catch (err) {
        if (isCasConflict(err)) return false;
        throw new StateStoreError("triage", "compareAndSet", key, { cause: err });
      }
    });
  }

  sweep(cutoffMs: number): Observable<number> {
    return defer(async () => {
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
        if (deleted) removed++;
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
