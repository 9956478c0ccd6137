import { describe, expect, it } from "vitest";
import { quoteFor, type ReplyToMode } from "../../../../operators/delivery/text/replyThreading.js";

const quotes = (mode: ReplyToMode, target: string | undefined, count: number) => Array.from({ length: count }, (_, index) => quoteFor(mode, target, index));

describe("quoteFor (peers.md §9.2 vector)", () => {
  it("first quotes only the first message of a 3-message reply", () => {
    expect(quotes("first", "ref", 3)).toEqual(["ref", undefined, undefined]);
  });

  it("all quotes every message", () => {
    expect(quotes("all", "ref", 3)).toEqual(["ref", "ref", "ref"]);
  });

  it("off quotes none", () => {
    expect(quotes("off", "ref", 3)).toEqual([undefined, undefined, undefined]);
  });

  it.each<ReplyToMode>(["off", "first", "all"])("without a target, %s quotes none", (mode) => {
    expect(quotes(mode, undefined, 3)).toEqual([undefined, undefined, undefined]);
  });

  it("a one-message reply quotes in first and all", () => {
    expect(quoteFor("first", "ref", 0)).toBe("ref");
    expect(quoteFor("all", "ref", 0)).toBe("ref");
    expect(quoteFor("off", "ref", 0)).toBeUndefined();
  });
});
