import type { KV } from "@nats-io/kv";
import type { DeliveryLedger } from "../deliveryLedger.js";
import { beginStep, completeStep, deliveredStep, isLedgerRecord, type LedgerRecord } from "../ledgerRecord.js";
import { casUpdate, KnownRecords, type RecordBucket } from "./storedRecord.js";

/**
 * The delivery ledger in a NATS KV bucket shared by every worker; every change is a
 * compare-and-set retried on conflict, so of two workers beginning one event at once exactly one
 * sees it new. The bucket's TTL (`state_ttl_secs`) collects old records.
 */
export class KvDeliveryLedger implements DeliveryLedger {
  readonly #bucket: RecordBucket<LedgerRecord>;

  constructor(kv: KV) {
    this.#bucket = { kv, store: "ledger", known: new KnownRecords(), isValue: isLedgerRecord };
  }

  begin(key: string, nowMs: number): Promise<LedgerRecord | undefined> {
    return casUpdate(this.#bucket, "begin", key, (current) => beginStep(current, nowMs));
  }

  delivered(key: string, count: number, nowMs: number): Promise<void> {
    return casUpdate(this.#bucket, "delivered", key, (current) => deliveredStep(current, count, nowMs));
  }

  complete(key: string, nowMs: number): Promise<void> {
    return casUpdate(this.#bucket, "complete", key, (current) => completeStep(current, nowMs));
  }
}
