import { TestScheduler } from "rxjs/testing";
import { describe, expect, it } from "vitest";
import { InboundDedupe } from "../../operators/ingress/inboundDedupe.js";
import { claimStep, commitStep, isDedupeRecord, releaseStep } from "../../src/state/dedupeRecord.js";
import { MemoryDedupeStore } from "../../src/state/dedupeStore.js";
import { describeDedupeStoreContract } from "./contracts/dedupeStoreContract.js";
import { dedupeAsPromises } from "./contracts/storePromises.js";

describe("MemoryDedupeStore: the DedupeStore contract", () => {
  describeDedupeStoreContract(({ ttlMs }) => new MemoryDedupeStore(new InboundDedupe({ ttlMs, max: 5000 })));
});

describe("MemoryDedupeStore", () => {
  it("shares the InboundDedupe it wraps, max included", async () => {
    const dedupe = new InboundDedupe({ ttlMs: 1000, max: 1 });
    const store = dedupeAsPromises(new MemoryDedupeStore(dedupe));
    for (const key of ["a", "b"]) {
      await store.claim(key, "telegram:e1", 0);
      await store.commit(key, 0);
    }
    expect([dedupe.peek("a", 1), dedupe.peek("b", 1)]).toEqual([false, true]);
  });

  it("answers synchronously on subscription (marble tests drive it in virtual time)", () => {
    const store = new MemoryDedupeStore(new InboundDedupe({ ttlMs: 1000, max: 10 }));
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ expectObservable }) => {
      expectObservable(store.claim("k", "telegram:e1", 0)).toBe("(c|)", { c: "claimed" });
      expectObservable(store.claim("k", "telegram:e2", 1)).toBe("(i|)", { i: "inflight" });
      expectObservable(store.release("k", "telegram:e1")).toBe("|");
      expectObservable(store.claim("k", "telegram:e2", 2)).toBe("(c|)", { c: "claimed" });
      expectObservable(store.commit("k", 3)).toBe("|");
      expectObservable(store.claim("k", "telegram:e3", 4)).toBe("(d|)", { d: "duplicate" });
    });
  });
});

describe("dedupe record steps (what KvDedupeStore decides)", () => {
  const inflight = { state: "inflight", owner: "telegram:e1", at: 100 } as const;
  const committed = { state: "committed", owner: "telegram:e1", at: 100 } as const;

  it("claims a new or stale key, writing an in-flight record", () => {
    const claimed = { result: "claimed", next: { state: "inflight", owner: "telegram:e2", at: 200 } };
    expect(claimStep(undefined, "telegram:e2", 200, 50)).toEqual(claimed);
    expect(claimStep(committed, "telegram:e2", 200, 100)).toEqual(claimed); // exactly the TTL old: stale
  });

  it("answers a fresh committed key with duplicate and refreshes its time", () => {
    expect(claimStep(committed, "telegram:e2", 199, 100)).toEqual({ result: "duplicate", next: { ...committed, at: 199 } });
  });

  it("leaves an in-flight record alone: claimed for its owner, inflight for another", () => {
    expect(claimStep(inflight, "telegram:e1", 5_000_000, 100)).toEqual({ result: "claimed" });
    expect(claimStep(inflight, "telegram:e2", 5_000_000, 100)).toEqual({ result: "inflight" });
  });

  it("commits with the claim's owner, or removes the key when dedupe is off", () => {
    expect(commitStep(inflight, 300, 100)).toEqual({ result: undefined, next: { state: "committed", owner: "telegram:e1", at: 300 } });
    expect(commitStep(undefined, 300, 100)).toEqual({ result: undefined, next: { state: "committed", owner: "", at: 300 } });
    expect(commitStep(inflight, 300, 0)).toEqual({ result: undefined, next: null });
  });

  it("releases only the owner's in-flight record", () => {
    expect(releaseStep(inflight, "telegram:e1")).toEqual({ result: undefined, next: null });
    expect(releaseStep(inflight, "telegram:e2")).toEqual({ result: undefined });
    expect(releaseStep(committed, "telegram:e1")).toEqual({ result: undefined });
    expect(releaseStep(undefined, "telegram:e1")).toEqual({ result: undefined });
  });

  it("recognises only well-formed records", () => {
    expect(isDedupeRecord(inflight)).toBe(true);
    for (const bad of [null, [], {}, { ...inflight, state: "done" }, { ...inflight, owner: 1 }, { ...inflight, at: "1" }, { ...inflight, at: Number.NaN }]) {
      expect(isDedupeRecord(bad)).toBe(false);
    }
  });
});
