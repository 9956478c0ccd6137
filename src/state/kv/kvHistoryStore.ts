import type { KV } from "@nats-io/kv";
import type { Observable } from "rxjs";
import type { HistoryEntry } from "../../../operators/ingress/groupHistory.js";
import { appendStep, isHistoryRecord, removeStep, type HistoryRecord } from "../historyRecord.js";
import type { HistoryStore } from "../historyStore.js";
import { StateStoreError } from "../errors.js";
import { kvKey } from "./kvKey.js";
import { kvOperation, kvWrite } from "./kvOperation.js";
import { casUpdate, liveEntry, parseEntry, type KvWrites, type RecordBucket } from "./storedRecord.js";

/**
 * Group history in a NATS KV bucket shared by every worker: one `{ entries }` record per
 * conversation, changed only by compare-and-set (retried on conflict), so two workers — or the
 * same message published by two edges — never lose or double an entry. An emptied history is
 * deleted; the bucket's TTL (`state_ttl_secs`) collects conversations never answered.
 */
export class KvHistoryStore implements HistoryStore {
  readonly #bucket: RecordBucket<HistoryRecord>;

  /** `writes`: how compare-and-set writes reach the bucket (default: through `kv`). */
  constructor(kv: KV, options: { readonly writes?: KvWrites } = {}) {
    this.#bucket = { kv, writes: options.writes ?? kv, store: "history", isValue: isHistoryRecord };
  }

  append(key: string, entry: HistoryEntry, limit: number): Observable<never> {
    return kvWrite(() => casUpdate(this.#bucket, "append", key, (current) => appendStep(current, entry, limit)));
  }

  read(key: string): Observable<readonly HistoryEntry[]> {
    return kvOperation(async () => {
      let entry;
      try {
        entry = await liveEntry(this.#bucket.kv, kvKey(key));
      } catch (err) {
        throw new StateStoreError("history", "read", key, { cause: err });
      }
      return entry === undefined ? [] : parseEntry(this.#bucket, "read", key, entry).value.entries;
    });
  }

  remove(key: string, packed: readonly HistoryEntry[]): Observable<never> {
    return kvWrite(() => casUpdate(this.#bucket, "remove", key, (current) => removeStep(current, packed)));
  }
}
