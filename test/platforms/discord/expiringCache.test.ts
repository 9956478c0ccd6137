import { describe, expect, it } from "vitest";
import { ExpiringCache } from "../../../src/platforms/discord/expiringCache.js";

describe("ExpiringCache (the multibot and participation notes)", () => {
  it("forgets an entry once it is ttlMs old", () => {
    let now = 0;
    const cache = new ExpiringCache<true>({ ttlMs: 100, now: () => now });
    cache.set("a", true);
    now = 99;
    expect(cache.has("a")).toBe(true);
    now = 100;
    expect(cache.has("a")).toBe(false);
    expect(cache.size).toBe(0);
  });

  it("over capacity drops the expired first, then the oldest half", () => {
    let now = 0;
    const cache = new ExpiringCache<number>({ ttlMs: 1_000, maxEntries: 4, now: () => now });
    cache.set("old", 0);
    now = 1_000;
    for (const key of ["b", "c", "d", "e"]) cache.set(key, 1);
    expect([cache.size, cache.has("old"), cache.has("b")]).toEqual([4, false, true]);
    cache.set("f", 1);
    expect(["b", "c", "d", "e", "f"].filter((key) => cache.has(key))).toEqual(["e", "f"]);
  });

  it("setting again refreshes the age and the order", () => {
    let now = 0;
    const cache = new ExpiringCache<boolean>({ ttlMs: 100, now: () => now });
    cache.set("a", false);
    now = 90;
    cache.set("a", true);
    now = 150;
    expect(cache.get("a")).toBe(true);
  });
});
