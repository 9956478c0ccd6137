import { describe, expect, it } from "vitest";
import { partitionOf } from "../../../operators/dispatch/partitionOf.js";

describe("partitionOf", () => {
  it("is FNV-1a 32-bit mod partitions (frozen vectors: every publisher must agree)", () => {
    // FNV-1a("") = 0x811c9dc5, FNV-1a("a") = 0xe40c292c, FNV-1a("foobar") = 0xbf9cf968.
    expect(partitionOf("", 2 ** 31)).toBe(0x811c9dc5 % 2 ** 31);
    expect(partitionOf("a", 1000)).toBe(0xe40c292c % 1000);
    expect(partitionOf("foobar", 16)).toBe(0xbf9cf968 % 16);
    expect(partitionOf("telegram:c1", 16)).toBe(partitionOf("telegram:c1", 16));
  });

  it("stays in range and spreads keys over every partition", () => {
    const counts = new Array<number>(16).fill(0);
    for (let i = 0; i < 16_000; i++) {
      const p = partitionOf(`telegram:chat-${i}`, 16);
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThan(16);
      counts[p] = (counts[p] ?? 0) + 1;
    }
    for (const count of counts) expect(count).toBeGreaterThan(800);
  });

  it("puts everything in partition 0 when there is one partition", () => {
    expect(partitionOf("anything", 1)).toBe(0);
  });

  it("rejects a partition count that is not a positive integer", () => {
    expect(() => partitionOf("k", 0)).toThrow(RangeError);
    expect(() => partitionOf("k", 2.5)).toThrow(RangeError);
  });
});
