import { concatMap, defer, delay, type Observable, of, throwError } from "rxjs";
import type { TriageState } from "../../../operators/triage/triageState.js";
import { MemoryTriageStore, type TriageEntry, type TriageStore } from "../../../src/state/triageStore.js";

/** Counts the calls a store gets, delegating to `inner`. */
export class CountingStore implements TriageStore {
  reads = 0;
  writes = 0;
  sweeps = 0;
  constructor(readonly inner: TriageStore = new MemoryTriageStore()) {}
  read(key: string): Observable<TriageEntry | undefined> {
    this.reads++;
    return this.inner.read(key);
  }
  compareAndSet(key: string, state: TriageState, expectedRevision: number | undefined): Observable<boolean> {
    this.writes++;
    return this.inner.compareAndSet(key, state, expectedRevision);
  }
  sweep(cutoffMs: number): Observable<number> {
    this.sweeps++;
    return this.inner.sweep(cutoffMs);
  }
}

/** A store no test path may touch: every call throws. */
export const untouchableStore: TriageStore = {
  read: () => {
    throw new Error("read called");
  },
  compareAndSet: () => {
    throw new Error("compareAndSet called");
  },
  sweep: () => {
    throw new Error("sweep called");
  },
};

/** `inner` with I/O latency in virtual frames (run inside `TestScheduler.run`). */
export function slowStore(inner: TriageStore, readFrames: number, writeFrames: number, sweepFrames = 0): TriageStore {
  return {
    read: (key) => inner.read(key).pipe(delay(readFrames)),
    // The write lands when the latency is over, as a remote compare-and-set would.
    compareAndSet: (key, state, revision) => of(undefined).pipe(delay(writeFrames), concatMap(() => inner.compareAndSet(key, state, revision))),
    sweep: (cutoffMs) => (sweepFrames === 0 ? inner.sweep(cutoffMs) : of(undefined).pipe(delay(sweepFrames), concatMap(() => inner.sweep(cutoffMs)))),
  };
}

/** A store whose first `conflicts` compare-and-sets fail, each after `beforeFailing` ran (a rival writer). */
export function conflictingStore(inner: TriageStore, conflicts: number, beforeFailing: () => void = () => undefined): TriageStore {
  let left = conflicts;
  return {
    read: (key) => inner.read(key),
    compareAndSet: (key, state, revision) =>
      defer(() => {
        if (left <= 0) return inner.compareAndSet(key, state, revision);
        left--;
        beforeFailing();
        return of(false);
      }),
    sweep: (cutoffMs) => inner.sweep(cutoffMs),
  };
}

/** A store whose reads fail with `error`. */
export function failingStore(error: Error): TriageStore {
  return { read: () => throwError(() => error), compareAndSet: () => of(true), sweep: () => of(0) };
}
