import { Observable } from "rxjs";
import { lastActivityMs, type TriageState } from "../../operators/triage/triageState.js";
import type { TriageEntry, TriageStore } from "../../operators/triage/triageStore.js";

export type { TriageEntry, TriageStore };

/**
 * A `TriageStore` in one process's memory; each operation runs synchronously on subscription, and
 * `readNow` / `compareAndSetNow` answer within the call (what the worker's turn uses).
 * Each answer is one hand-written Observable rather than `defer` + `of`: triage reads the store
 * for every proactive event.
 */
export class MemoryTriageStore implements TriageStore {
  readonly #entries = new Map<string, TriageEntry>();
  // One counter for the whole store, like a KV bucket's sequence: a key deleted by a sweep and
  // re-created never reuses a revision, so a stale compareAndSet cannot succeed (no ABA).
  #lastRevision = 0;

  /** How many conversations are tracked. */
  get size(): number {
    return this.#entries.size;
  }

  read(key: string): Observable<TriageEntry | undefined> {
    return answer(() => this.readNow(key));
  }

  compareAndSet(key: string, state: TriageState, expectedRevision: number | undefined): Observable<boolean> {
    return answer(() => this.compareAndSetNow(key, state, expectedRevision));
  }

  readNow(key: string): TriageEntry | undefined {
    return this.#entries.get(key);
  }

  compareAndSetNow(key: string, state: TriageState, expectedRevision: number | undefined): boolean {
    if (this.#entries.get(key)?.revision !== expectedRevision) return false;
    this.#entries.set(key, { state, revision: ++this.#lastRevision });
    return true;
  }

  sweep(cutoffMs: number): Observable<number> {
    return answer(() => {
      let removed = 0;
      for (const [key, { state }] of this.#entries) {
        const newest = lastActivityMs(state);
        if (newest === undefined || newest < cutoffMs) {
          this.#entries.delete(key);
          removed++;
        }
      }
      return removed;
    });
  }
}

/** Runs `work` on each subscription and emits its result; what it throws is the stream's error. */
function answer<T>(work: () => T): Observable<T> {
  return new Observable<T>((subscriber) => {
    let value: T;
    try {
      value = work();
    } catch (err) {
      subscriber.error(err);
      return;
    }
    subscriber.next(value);
    subscriber.complete();
  });
}
