import { describe, expect, it } from "vitest";
import { BreakScan } from "../../../../operators/delivery/blocks/breakScan.js";
import { firstPreferredBreak, lastPreferredBreak } from "../../../../operators/delivery/blocks/preferredBreak.js";

/** The scan of a whole text. */
function scanOf(text: string): BreakScan {
  const scan = new BreakScan();
  scan.feed(text);
  scan.finish();
  return scan;
}

// 0         1          2
// 0123456789012345 6789 0123456789
// One two. Three\nfour\n\nfive six.
const text = "One two. Three\nfour\n\nfive six.";

describe("lastPreferredBreak", () => {
  const scan = scanOf(text);

  it("takes the preferred break nearest the window's end", () => {
    expect(lastPreferredBreak(scan, "paragraph", 0, 1, 30)).toBe(19);
    expect(lastPreferredBreak(scan, "newline", 0, 1, 30)).toBe(20);
    expect(lastPreferredBreak(scan, "sentence", 0, 1, 20)).toBe(8);
  });

  it("falls back to a sentence end, then any whitespace, when the preferred break is not in the window", () => {
    expect(lastPreferredBreak(scan, "paragraph", 0, 1, 13)).toBe(8);
    expect(lastPreferredBreak(scan, "newline", 0, 1, 8)).toBe(3);
  });

  it("a break that would leave the block shorter than `shortest` does not count", () => {
    expect(lastPreferredBreak(scan, "paragraph", 0, 20, 30)).toBe(20);
    expect(lastPreferredBreak(scan, "sentence", 0, 8, 20)).toBe(19);
  });

  it("-1 when the window holds no break at all", () => {
    expect(lastPreferredBreak(scanOf("abcdefgh"), "paragraph", 0, 1, 5)).toBe(-1);
  });
});

describe("firstPreferredBreak", () => {
  const scan = scanOf(text);

  it("the first paragraph or line end after the start, or the last sentence end", () => {
    expect(firstPreferredBreak(scan, "paragraph", 0)).toBe(19);
    expect(firstPreferredBreak(scan, "newline", 0)).toBe(14);
    expect(firstPreferredBreak(scan, "newline", 15)).toBe(19);
    expect(firstPreferredBreak(scan, "sentence", 0)).toBe(30);
  });

  it("-1 when there is none", () => {
    expect(firstPreferredBreak(scanOf("abc def"), "newline", 0)).toBe(-1);
  });
});
