import { take } from "rxjs";
import { describe, expect, it } from "vitest";
import { admit } from "../../../operators/triage/admit.js";
import { sweepTriage, TRIAGE_SWEEP_INTERVAL_MS } from "../../../operators/triage/triageSweep.js";
import { MemoryTriageStore } from "../../../src/state/triageStore.js";
import { testScheduler } from "../../helpers/marbles.js";
import { enabled, sync } from "./conversations.js";
import { CountingStore, slowStore } from "./stores.js";

/** A store with one conversation per `[key, wake time ms]`. */
function storeWith(wakes: [string, number][]): MemoryTriageStore {
  const store = new MemoryTriageStore();
  for (const [key, wokeAt] of wakes) sync(store.compareAndSet(key, admit(undefined, "e", enabled(), wokeAt).state, undefined));
  return store;
}

describe("sweepTriage", () => {
  it("sweeps every 60 s of scheduler time, forgetting conversations idle longer than the TTL", () => {
    expect(TRIAGE_SWEEP_INTERVAL_MS).toBe(60_000);
    const store = storeWith([
      ["telegram:old", 0],
      ["telegram:fresh", 100_000],
    ]);
    testScheduler().run(({ expectObservable }) => {
      // Cutoffs: -30 000, 30 000 (old goes), 90 000 (fresh stays: newer), 150 000 (fresh goes).
      const sweeps = sweepTriage(store, { ttlMs: 90_000 }).pipe(take(4));
      expectObservable(sweeps).toBe("60s a 59999ms b 59999ms c 59999ms (d|)", { a: 0, b: 1, c: 0, d: 1 });
    });
    expect(store.size).toBe(0);
  });

  it("keeps a conversation whose newest activity is exactly at the cutoff", () => {
    const store = storeWith([["telegram:edge", 30_000]]);
    testScheduler().run(({ expectObservable }) => {
      expectObservable(sweepTriage(store, { ttlMs: 30_000, intervalMs: 60_000 }).pipe(take(2))).toBe("60s a 59999ms (b|)", { a: 0, b: 1 });
    });
  });

  it("skips a tick while the previous sweep is still running", () => {
    const inner = new CountingStore(storeWith([["telegram:old", 0]]));
    testScheduler().run(({ expectObservable }) => {
      // Each sweep takes 90 s: ticks at 60 s and 180 s sweep; the tick at 120 s finds one running.
      const sweeps = sweepTriage(slowStore(inner, 0, 0, 90_000), { ttlMs: 1_000 }).pipe(take(2));
      expectObservable(sweeps).toBe("150s a 119999ms (b|)", { a: 1, b: 0 });
    });
    expect(inner.sweeps).toBe(2);
  });

  it("stops when unsubscribed", () => {
    const inner = new CountingStore(new MemoryTriageStore());
    testScheduler().run(({ expectObservable }) => {
      expectObservable(sweepTriage(inner, { ttlMs: 1_000 }), "^ 150s !").toBe("60s a 59999ms b", { a: 0, b: 0 });
    });
    expect(inner.sweeps).toBe(2);
  });
});
