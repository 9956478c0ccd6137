import { beginStep, completeStep, deliveredStep, type LedgerRecord } from "./ledgerRecord.js";
import type { RecordStep } from "./recordStep.js";

export type { LedgerRecord };

/**
 * What became of each event's turn, across workers and redeliveries: one record per event key
 * (`platform:event_id`). A worker calls `begin` before the turn, `delivered` after each message
 * the gateway acked, `complete` when the turn is done; a redelivered event's `begin` tells what
 * the earlier attempts did. Every change is a compare-and-set, retried on conflict.
 *
 * - `begin`: resolves with the record as it was before (`undefined`: first time) and records a new
 *   attempt (`started`, `attempts + 1`, `delivered` kept); a `complete` record is left unchanged.
 * - `delivered`: raises `delivered` to `count` (never lowers it).
 * - `complete`: marks the turn done.
 *
 * Rejects with StateStoreError when the store cannot be reached.
 */
export interface DeliveryLedger {
  begin(key: string, nowMs: number): Promise<LedgerRecord | undefined>;
  delivered(key: string, count: number, nowMs: number): Promise<void>;
  complete(key: string, nowMs: number): Promise<void>;
}

/** A `DeliveryLedger` in one process's memory, keeping the `max` most recently written records. */
export class MemoryDeliveryLedger implements DeliveryLedger {
  readonly #records = new Map<string, LedgerRecord>();
  readonly #max: number;

  constructor(options: { readonly max?: number } = {}) {
    this.#max = options.max ?? 10_000;
  }

  async begin(key: string, nowMs: number): Promise<LedgerRecord | undefined> {
    return this.#apply(key, (current) => beginStep(current, nowMs));
  }

  async delivered(key: string, count: number, nowMs: number): Promise<void> {
    this.#apply(key, (current) => deliveredStep(current, count, nowMs));
  }

  async complete(key: string, nowMs: number): Promise<void> {
    this.#apply(key, (current) => completeStep(current, nowMs));
  }

  #apply<R>(key: string, step: (current: LedgerRecord | undefined) => RecordStep<LedgerRecord, R>): R {
    const { result, next } = step(this.#records.get(key));
    if (next === undefined) return result;
    this.#records.delete(key);
    if (next === null) return result;
    this.#records.set(key, next); // Map order: oldest write first
    for (const oldest of this.#records.keys()) {
      if (this.#records.size <= this.#max) break;
      this.#records.delete(oldest);
    }
    return result;
  }
}
