import type { KV } from "@nats-io/kv";
import { defer, ignoreElements, type Observable } from "rxjs";
import { claimStep, commitStep, type DedupeRecord, isDedupeRecord, releaseStep } from "../dedupeRecord.js";
import type { Claim, DedupeStore } from "../dedupeStore.js";
import { casUpdate, KnownRecords, type KvWrites, type RecordBucket } from "./storedRecord.js";

/**
 * Inbound dedupe in a NATS KV bucket shared by every worker: one `{ state, owner, at }` record per
 * key, changed only by compare-and-set (retried on conflict). A committed key is a duplicate while
 * `nowMs - at < ttlMs`; the bucket's own TTL (`state_ttl_secs`) only collects old records, so it
 * never decides freshness. No `max`: the bucket TTL bounds the size instead. Each operation is
 * cold: one compare-and-set update (`casUpdate`) per subscription.
 */
export class KvDedupeStore implements DedupeStore {
  readonly #bucket: RecordBucket<DedupeRecord>;
  readonly #ttlMs: number;

  /** `writes`: how compare-and-set writes reach the bucket (default: through `kv`). */
  constructor(kv: KV, options: { readonly ttlMs: number; readonly writes?: KvWrites }) {
    this.#bucket = { kv, writes: options.writes ?? kv, store: "dedupe", known: new KnownRecords(), isValue: isDedupeRecord };
    this.#ttlMs = options.ttlMs;
  }

  claim(key: string, owner: string, nowMs: number): Observable<Claim> {
    return defer(() => casUpdate(this.#bucket, "claim", key, (current) => claimStep(current, owner, nowMs, this.#ttlMs)));
  }

  commit(key: string, nowMs: number): Observable<never> {
    return defer(() => casUpdate(this.#bucket, "commit", key, (current) => commitStep(current, nowMs, this.#ttlMs))).pipe(ignoreElements());
  }

  release(key: string, owner: string): Observable<never> {
    return defer(() => casUpdate(this.#bucket, "release", key, (current) => releaseStep(current, owner))).pipe(ignoreElements());
  }
}
