import { describe, expect, it } from "vitest";
import { leasePlan, leaseTarget, type LeaseView } from "../../../operators/dispatch/leasePlan.js";

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const view = (over: Partial<LeaseView> & Pick<LeaseView, "self">): LeaseView => ({
  partitions: 16,
  owned: new Set(),
  holders: new Map(),
  workers: [over.self],
  ...over,
});

describe("leaseTarget", () => {
  it("gives ceil to the first partitions-mod-workers ids in sorted order and floor to the rest", () => {
    const workers = ["c", "a", "b"];
    expect(workers.map((w) => leaseTarget(16, workers, w))).toEqual([5, 6, 5]);
    expect(["a", "b", "c", "d", "e"].map((w, _, all) => leaseTarget(16, all, w))).toEqual([4, 3, 3, 3, 3]);
    expect(leaseTarget(16, ["a", "b"], "a")).toBe(8);
  });

  it("counts self even when the presence list does not show it yet", () => {
    expect(leaseTarget(16, ["b"], "a")).toBe(8);
    expect(leaseTarget(16, [], "a")).toBe(16);
  });

  it("ignores duplicate ids", () => {
    expect(leaseTarget(16, ["a", "a", "b"], "b")).toBe(8);
  });

  it("rejects a partition count that is not a positive integer", () => {
    expect(() => leaseTarget(0, ["a"], "a")).toThrow(RangeError);
    expect(() => leasePlan(view({ self: "a", partitions: 1.5 }))).toThrow(RangeError);
  });
});

describe("leasePlan", () => {
  it("a lone worker acquires every free partition", () => {
    expect(leasePlan(view({ self: "a" }))).toEqual({ acquire: range(0, 16), release: [] });
  });

  it("workers with the same view start at disjoint blocks of a contiguous split", () => {
    const workers = ["a", "b", "c"];
    const plans = workers.map((self) => leasePlan(view({ self, workers })).acquire);
    expect(plans).toEqual([range(0, 6), range(6, 11), range(11, 16)]);
  });

  it("never plans to acquire a held partition, and wraps around from its offset", () => {
    const holders = new Map([6, 7, 8, 9, 10].map((p) => [p, "x"] as const));
    const plan = leasePlan(view({ self: "b", workers: ["a", "b"], holders }));
    expect(plan).toEqual({ acquire: [11, 12, 13, 14, 15, 0, 1, 2], release: [] });
  });

  it("acquires only what is missing up to the target", () => {
    const owned = new Set([0, 1, 2, 3, 4, 5]);
    const holders = new Map([...owned].map((p) => [p, "a"] as const));
    expect(leasePlan(view({ self: "a", workers: ["a", "b"], owned, holders }))).toEqual({ acquire: [6, 7], release: [] });
  });

  it("releases what it holds above the target, furthest from its own block first", () => {
    const owned = new Set(range(0, 16));
    const holders = new Map(range(0, 16).map((p) => [p, "b"] as const));
    // b is rank 1 of 3 (target 5, block 6–10): it keeps 6–10 and gives up the rest, 5 first.
    const plan = leasePlan(view({ self: "b", workers: ["a", "b", "c"], owned, holders }));
    expect(plan.acquire).toEqual([]);
    expect(plan.release).toEqual([5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11]);
  });

  it("does nothing when it holds exactly its target", () => {
    const owned = new Set(range(0, 8));
    const holders = new Map(range(0, 16).map((p) => [p, p < 8 ? "a" : "b"] as const));
    expect(leasePlan(view({ self: "a", workers: ["a", "b"], owned, holders }))).toEqual({ acquire: [], release: [] });
  });

  it("waits while others hold everything, even below its target", () => {
    const holders = new Map(range(0, 16).map((p) => [p, "a"] as const));
    expect(leasePlan(view({ self: "b", workers: ["a", "b"], holders }))).toEqual({ acquire: [], release: [] });
  });
});
