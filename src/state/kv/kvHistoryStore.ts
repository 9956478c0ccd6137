import type { KV } from "@nats-io/kv";
import type { Observable } from "rxjs";
import type { HistoryEntry } from "../../../operators/ingress/prompt/groupHistory.js";
import { HISTORY_MAX_BYTES } from "../../../operators/ingress/prompt/historyBudget.js";
import { appendStep, isHistoryRecord, removeStep, type HistoryKept, type HistoryRecord } from "../historyRecord.js";
import type { HistoryStore } from "../historyStore.js";
import { StateStoreError } from "../errors.js";
import { kvKey } from "./kvKey.js";
import { kvOperation, kvWrite } from "./kvOperation.js";
import { casUpdate, liveEntry, parseEntry, type KvWrites, type RecordBucket } from "./storedRecord.js";

// What a KV write carries besides the record: the subject and the compare-and-set header.
const KV_WRITE_HEADROOM_BYTES = 4 * 1024;
// nats-server's default, for a connection that has not said (it always has once connected).
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/**
 * The byte budget of a history record on a server whose `max_payload` is this: HISTORY_MAX_BYTES,
 * or less where the server takes less, so a write never fails with `MAX_PAYLOAD_EXCEEDED` (which
 * would hand the message back, again and again).
 */
export function kvHistoryBudget(maxPayload: number | undefined): number {
  return Math.max(0, Math.min(HISTORY_MAX_BYTES, (maxPayload ?? DEFAULT_MAX_PAYLOAD) - KV_WRITE_HEADROOM_BYTES));
}

/**
 * Group history in a NATS KV bucket shared by every worker: one `{ entries }` record per
 * conversation, changed only by compare-and-set (retried on conflict), so two workers — or the
 * same message published by two edges — never lose or double an entry. An emptied history is
 * deleted; the bucket's TTL (`state_ttl_secs`) collects conversations never answered. A record
 * holds at most `maxBytes` (kvHistoryBudget of the server's `max_payload`), the oldest dropped first.
 */
export class KvHistoryStore implements HistoryStore {
  readonly #bucket: RecordBucket<HistoryRecord>;
  readonly #maxBytes: number;

  /** `writes`: how compare-and-set writes reach the bucket (default: through `kv`); `maxBytes` default: kvHistoryBudget of 1 MiB. */
  constructor(kv: KV, options: { readonly writes?: KvWrites; readonly maxBytes?: number } = {}) {
    this.#bucket = { kv, writes: options.writes ?? kv, store: "history", isValue: isHistoryRecord };
    this.#maxBytes = options.maxBytes ?? kvHistoryBudget(undefined);
  }

  append(key: string, entry: HistoryEntry, limit: number): Observable<HistoryKept> {
    return kvOperation(() => casUpdate(this.#bucket, "append", key, (current) => appendStep(current, entry, limit, this.#maxBytes)));
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
