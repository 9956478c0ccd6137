import { defer, EMPTY, of, type Observable } from "rxjs";
import { beginStep, completeStep, deliveredStep, type KeptMessage, type LedgerRecord } from "./ledgerRecord.js";
import type { RecordStep } from "./recordStep.js";

export type { KeptMessage, LedgerRecord };

/**
 * What became of each event's turn, across workers and redeliveries: one record per event key
 * (`platform:event_id`). A worker reads the record only for a redelivered event (what did the
 * earlier attempts do?), calls `begin` just before the turn's first send, `delivered` after each
 * message the gateway acked and `complete` when the turn is done — so an event delivered once whose
 * turn sends nothing costs one write. Every change is a compare-and-set, retried on conflict.
 *
 * - `read`: the record, or `undefined` when there is none.
 * - `begin`: emits the record as it was before (`undefined`: none) and records an attempt that is
 *   about to send (`started`, `attempts + 1`, `delivered` kept); a `complete` record is left unchanged.
 * - `delivered`: raises `delivered` to `count` (never lowers it); with `kept`, also records that
 *   id as a message the attempt will edit in place (a streaming reply's placeholder) or a question
 *   it asked in the chat, so that a re-run after the attempt died can delete the one and mark the
 *   other expired; `begin` keeps the ids, `complete` drops them.
 * - `complete`: marks the turn done, creating the record when there is none.
 *
 * Every method returns a cold Observable that does its work on subscription: `read` and `begin`
 * emit one value and complete, `delivered` and `complete` (nothing to report) just complete; any
 * of them errors with StateStoreError when the store cannot be reached (RangeError for a bad
 * count). Observables, like every storage port (`TriageStore`): the memory ledger answers
 * synchronously, so marble tests of the code around it are exact.
 */
export interface DeliveryLedger {
  read(key: string): Observable<LedgerRecord | undefined>;
  begin(key: string, nowMs: number): Observable<LedgerRecord | undefined>;
  delivered(key: string, count: number, nowMs: number, kept?: KeptMessage): Observable<never>;
  complete(key: string, nowMs: number): Observable<never>;
}

/** A `DeliveryLedger` in one process's memory, keeping the `max` most recently written records. */
export class MemoryDeliveryLedger implements DeliveryLedger {
  readonly #records = new Map<string, LedgerRecord>();
  readonly #max: number;

  constructor(options: { readonly max?: number } = {}) {
    this.#max = options.max ?? 10_000;
  }

  read(key: string): Observable<LedgerRecord | undefined> {
    return defer(() => of(this.#records.get(key)));
  }

  begin(key: string, nowMs: number): Observable<LedgerRecord | undefined> {
    return defer(() => of(this.#write(key, (current) => beginStep(current, nowMs))));
  }

  delivered(key: string, count: number, nowMs: number, kept?: KeptMessage): Observable<never> {
    return defer(() => {
      this.#write(key, (current) => deliveredStep(current, count, nowMs, kept));
      return EMPTY;
    });
  }

  complete(key: string, nowMs: number): Observable<never> {
    return defer(() => {
      this.#write(key, (current) => completeStep(current, nowMs));
      return EMPTY;
    });
  }

  /** Applies the step and keeps its next record; called inside `defer`, so a step that throws (a bad count) errors the Observable. */
  #write<R>(key: string, step: (current: LedgerRecord | undefined) => RecordStep<LedgerRecord, R>): R {
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
