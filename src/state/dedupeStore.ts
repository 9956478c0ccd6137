import { type Claim, InboundDedupe } from "../../operators/ingress/inboundDedupe.js";

export type { Claim };

/**
 * Inbound dedupe shared by every worker (`InboundDedupe`'s claim / commit / release, async). `key`
 * is `inboundDedupeKey(event)`; `owner` is the event's `platform:event_id`.
 *
 * - `claim`: "duplicate" when the key was committed less than the TTL ago (and that sighting
 *   refreshes the window); "inflight" when another owner's turn holds it; "claimed" otherwise,
 *   including when the same owner holds it (a redelivery after its worker died: the delivery
 *   ledger decides what to repeat).
 * - `commit`: the turn finished; redeliveries are duplicates for the TTL.
 * - `release`: the turn failed; frees the key if `owner` holds it, so a redelivery can run it.
 *
 * Rejects with StateStoreError when the store cannot be reached.
 */
export interface DedupeStore {
  claim(key: string, owner: string, nowMs: number): Promise<Claim>;
  commit(key: string, nowMs: number): Promise<void>;
  release(key: string, owner: string): Promise<void>;
}

/** A `DedupeStore` in one process's memory: an `InboundDedupe` (its TTL and its `max` keys). */
export class MemoryDedupeStore implements DedupeStore {
  readonly #dedupe: InboundDedupe;

  constructor(dedupe: InboundDedupe) {
    this.#dedupe = dedupe;
  }

  async claim(key: string, owner: string, nowMs: number): Promise<Claim> {
    return this.#dedupe.claim(key, nowMs, owner);
  }

  async commit(key: string, nowMs: number): Promise<void> {
    this.#dedupe.commit(key, nowMs);
  }

  async release(key: string, owner: string): Promise<void> {
    this.#dedupe.release(key, owner);
  }
}
