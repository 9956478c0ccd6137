import { describe, expect, it } from "vitest";
import { ExpiringCache } from "../../../src/platforms/slack/expiringCache.js";

describe("ExpiringCache", () => {
  it("forgets an entry once its time is up", () => {
    let now = 0;
    const cache = new ExpiringCache<string>({ ttlMs: 300_000, maxEntries: 10, now: () => now });
    cache.set("U1", "Ali");
    now = 299_999;
    expect(cache.get("U1")).toBe("Ali");
    now = 300_000;
    expect(cache.get("U1")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("when full, drops the expired entries, then the oldest half", () => {
    let now = 0;
    const cache = new ExpiringCache<number>({ ttlMs: 100, maxEntries: 4, now: () => now });
    cache.set("a", 1);
    now = 50;
    for (const key of ["b", "c", "d"]) cache.set(key, 2);
    now = 120;
    cache.set("e", 3);
    expect(["a", "b", "c", "d", "e"].map((key) => cache.has(key))).toEqual([false, true, true, true, true]);
    cache.set("f", 4);
    expect(["b", "c", "d", "e", "f"].map((key) => cache.has(key))).toEqual([false, false, true, true, true]);
  });
});
