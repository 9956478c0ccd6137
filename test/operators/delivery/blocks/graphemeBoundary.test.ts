import { describe, expect, it } from "vitest";
import { clusterEnd } from "../../../../operators/delivery/blocks/graphemeBoundary.js";

describe("clusterEnd", () => {
  it("between two ASCII characters: `to` itself", () => {
    expect(clusterEnd("abcdef", 0, 3)).toBe(3);
  });

  it("never before the block's start, never past the text's end", () => {
    expect(clusterEnd("abc", 2, 1)).toBe(2);
    expect(clusterEnd("abc", 0, 10)).toBe(3);
  });

  it("a cut inside a cluster (a \\r\\n, an emoji and its modifier) falls before it", () => {
    expect(clusterEnd("ab\r\ncd", 0, 3)).toBe(2);
    expect(clusterEnd("a👍🏽b", 0, 3)).toBe(1);
    expect(clusterEnd("a👍🏽b", 0, 5)).toBe(5);
  });

  it("a cluster wider than the room is cut between code points, never inside a surrogate pair", () => {
    expect(clusterEnd("👍🏽", 0, 3)).toBe(2);
    expect(clusterEnd("👍🏽", 0, 2)).toBe(2);
  });
});
