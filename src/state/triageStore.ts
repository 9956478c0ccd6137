import { defer, type Observable, of } from "rxjs";
import { lastActivityMs, type TriageState } from "../../operators/triage/triageState.js";
import type { TriageEntry, TriageStore } from "../../operators/triage/triageStore.js";

export type { TriageEntry, TriageStore };

/** A `TriageStore` in one process's memory; each operation runs synchronously on subscription. */
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
    return defer(() => of(this.#entries.get(key)));
  }

  compareAndSet(key: string, state: TriageState, expectedRevision: number | undefined): Observable<boolean> {
    return defer(() => {
      if (this.#entries.get(key)?.revision !== expectedRevision) return of(false);
      this.#entries.set(key, { state, revision: ++this.#lastRevision });
      return of(true);
    });
  }

  sweep(cutoffMs: number): Observable<number> {
    return defer(() => {
      let removed = 0;
      for (const [key, { state }] of this.#entries) {
        const newest = lastActivityMs(state);
        if (newest === undefined || newest < cutoffMs) {
          this.#entries.delete(key);
          removed++;
        }
      }
      return of(removed);
    });
  }
}
