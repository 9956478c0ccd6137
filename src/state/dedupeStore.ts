import { defer, EMPTY, type Observable, of } from "rxjs";
import { type Claim, InboundDedupe } from "../../operators/ingress/inboundDedupe.js";

export type { Claim };

/**
 * Inbound dedupe shared by every worker (`InboundDedupe`'s claim / commit / release as cold
 * Observables: each subscription does the operation once). `key` is `inboundDedupeKey(event)`;
 * `owner` is the event's `platform:event_id`.
 *
 * - `claim` emits one `Claim`: "duplicate" when the key was committed less than the TTL ago (and
 *   that sighting refreshes the window); "inflight" when another owner's turn holds it; "claimed"
 *   otherwise, including when the same owner holds it (a redelivery after its worker died: the
 *   delivery ledger decides what to repeat).
 * - `commit` completes without a value: the turn finished; redeliveries are duplicates for the TTL.
 * - `release` completes without a value: the turn failed; frees the key if `owner` holds it, so a
 *   redelivery can run it.
 *
 * Errors with StateStoreError when the store cannot be reached.
 */
export interface DedupeStore {
  claim(key: string, owner: string, nowMs: number): Observable<Claim>;
  commit(key: string, nowMs: number): Observable<never>;
  release(key: string, owner: string): Observable<never>;
}

/**
 * A `DedupeStore` in one process's memory: an `InboundDedupe` (its TTL and its `max` keys). Each
 * operation runs synchronously on subscription, so marble tests drive it in virtual time.
 */
export class MemoryDedupeStore implements DedupeStore {
  readonly #dedupe: InboundDedupe;

  constructor(dedupe: InboundDedupe) {
    this.#dedupe = dedupe;
  }

  claim(key: string, owner: string, nowMs: number): Observable<Claim> {
    return defer(() => of(this.#dedupe.claim(key, nowMs, owner)));
  }

  commit(key: string, nowMs: number): Observable<never> {
    return defer(() => {
      this.#dedupe.commit(key, nowMs);
      return EMPTY;
    });
  }

  release(key: string, owner: string): Observable<never> {
    return defer(() => {
      this.#dedupe.release(key, owner);
      return EMPTY;
    });
  }
}
