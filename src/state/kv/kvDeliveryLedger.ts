import type { KV } from "@nats-io/kv";
import type { Observable } from "rxjs";
import type { DeliveryLedger } from "../deliveryLedger.js";
import { StateStoreError } from "../errors.js";
import { beginStep, completeStep, deliveredStep, isLedgerRecord, type KeptMessage, type LedgerRecord } from "../ledgerRecord.js";
import { kvKey } from "./kvKey.js";
import { kvOperation, kvWrite } from "./kvOperation.js";
import { casUpdate, KnownRecords, liveEntry, parseEntry, STATE_MAX_ATTEMPTS, type KvWrites, type RecordBucket } from "./storedRecord.js";

/**
 * The delivery ledger in a NATS KV bucket shared by every worker; every change is a
 * compare-and-set retried on conflict, so of two workers beginning one event at once exactly one
 * sees it new. The bucket's TTL (`state_ttl_secs`) collects old records.
 *
 * Round trips: a `read` is one get, and it remembers the revision it read, so the redelivered
 * turn's `begin` after it is one update; a write over this process's own last write (or creating a
 * key) is one round trip; only a lost compare-and-set reads again. `complete` is a record's last
 * write here, so it is forgotten rather than remembered: the memory holds turns in progress, not
 * the last 10,000 events.
 */
export class KvDeliveryLedger implements DeliveryLedger {
  readonly #bucket: RecordBucket<LedgerRecord> & { readonly known: KnownRecords<LedgerRecord> };

  /** `writes`: how compare-and-set writes reach the bucket (default: through `kv`). */
  constructor(kv: KV, options: { readonly writes?: KvWrites } = {}) {
    this.#bucket = { kv, writes: options.writes ?? kv, store: "ledger", known: new KnownRecords(), isValue: isLedgerRecord };
  }

  read(key: string): Observable<LedgerRecord | undefined> {
    return kvOperation(async () => {
      const encoded = kvKey(key);
      let entry;
      try {
        entry = await liveEntry(this.#bucket.kv, encoded);
      } catch (err) {
        throw new StateStoreError("ledger", "read", key, { cause: err });
      }
      if (entry === undefined) return undefined;
      const stored = parseEntry(this.#bucket, "read", key, entry);
      this.#bucket.known.set(encoded, stored); // the next write names this revision without reading again
      return stored.value;
    });
  }

  begin(key: string, nowMs: number): Observable<LedgerRecord | undefined> {
    return kvOperation(() => casUpdate(this.#bucket, "begin", key, (current) => beginStep(current, nowMs)));
  }

  delivered(key: string, count: number, nowMs: number, kept?: KeptMessage): Observable<never> {
    return kvWrite(() => casUpdate(this.#bucket, "delivered", key, (current) => deliveredStep(current, count, nowMs, kept)));
  }

  complete(key: string, nowMs: number): Observable<never> {
    return kvWrite(() => casUpdate(this.#bucket, "complete", key, (current) => completeStep(current, nowMs), STATE_MAX_ATTEMPTS, { final: true }));
  }
}
