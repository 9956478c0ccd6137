import type { Observable } from "rxjs";
import type { TriageState } from "./triageState.js";

/** A conversation's triage state and the revision it was stored under. */
export interface TriageEntry {
  readonly state: TriageState;
  /** Changes on every write; what `compareAndSet` checks against. */
  readonly revision: number;
}

/**
 * Where triage keeps each conversation's state (`triageKey` → `TriageState`). Several workers share
 * one store, so each evaluation is a read followed by one compare-and-set, retried on conflict.
 * The NATS KV implementation maps `read` to `get`, `compareAndSet` to `create` (no expected
 * revision) or `update(key, value, revision)`, and `sweep` to deletes with the read revision.
 *
 * Every method returns a lazy Observable that does its work on subscription and emits exactly one
 * value, then completes (or errors on an I/O failure). Observables, not Promises, so marble tests
 * drive the triage operator in virtual time.
 */
export interface TriageStore {
  /** The entry for `key`, or `undefined` when there is none. */
  read(key: string): Observable<TriageEntry | undefined>;
  /**
   * Stores `state` under `key` if the key's current revision is `expectedRevision` (`undefined`:
   * only if the key does not exist). `true` when written, `false` on a conflict.
   */
  compareAndSet(key: string, state: TriageState, expectedRevision: number | undefined): Observable<boolean>;
  /**
   * Removes every conversation whose newest activity (last wake or newest remembered id) is older
   * than `cutoffMs`, or that has neither; emits how many were removed. Survivors are untouched.
   */
  sweep(cutoffMs: number): Observable<number>;
  /**
   * Optional: `read` answered within the call, offered by a store that keeps its entries in this
   * process's memory, so `triageNow` decides a proactive event with no stream (as the bus's
   * `persistNow`). A store offers both `readNow` and `compareAndSetNow`, or neither.
   */
  readNow?(key: string): TriageEntry | undefined;
  /** Optional: `compareAndSet` answered within the call (with `readNow`). */
  compareAndSetNow?(key: string, state: TriageState, expectedRevision: number | undefined): boolean;
}
