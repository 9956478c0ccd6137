import { fc, test } from "@fast-check/vitest";
import { describe, expect, it, vi } from "vitest";
import { charCount, graphemeCut } from "../../../../operators/delivery/text/graphemes.js";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const WHITE_SPACE_ONLY = /^\p{White_Space}+$/u;

/** The cut as defined: walk every cluster of the whole text from the start. */
function referenceCut(text: string, maxChars: number, wordWrap: boolean): number {
  let chars = 0;
  let end = 0;
  let afterLastSpace = 0;
  for (const { segment, index } of segmenter.segment(text)) {
    const width = charCount(segment);
    if (chars + width > maxChars) break;
    chars += width;
    end = index + segment.length;
    if (WHITE_SPACE_ONLY.test(segment)) afterLastSpace = end;
  }
  return wordWrap && end < text.length && afterLastSpace > 0 ? afterLastSpace : end;
}

// Pieces whose clusters reach across each other: combining marks, ZWJ sequences, regional
// indicator pairs (parity decides), Hangul jamo, CR LF, spaces with marks on them, lone surrogates.
const piece = fc.constantFrom(
  "a", " ", "\t", "\u00a0", "\u3000", "\u0301", "\u200d", "\u{1F468}", "\u{1F469}", "\u{1F3FD}", "\u{1F1F9}", "\u{1F1FC}",
  "\u1100", "\u1161", "\u11a8", "\r", "\n", "\r\n", "好", "\u{20000}", "\ud800", "\udc00", "e\u0301", " \u0301", "\u0915\u094d",
  "\ufe0f", "❤", "\u0600",
);
const text = fc.array(piece, { maxLength: 60 }).map((pieces) => pieces.join(""));

describe("graphemeCut", () => {
  test.prop([text, fc.integer({ min: 0, max: 70 }), fc.boolean()], { numRuns: 5000 })(
    "cuts where walking every cluster of the whole text cuts",
    (input, maxChars, wordWrap) => {
      expect(graphemeCut(input, maxChars, wordWrap)).toBe(referenceCut(input, maxChars, wordWrap));
    },
  );

  it.each([
    ["ab cd ef", 5, true, 3],
    ["ab cd ef", 5, false, 5],
    ["abcdef", 3, true, 3],
    ["e\u0301e\u0301", 3, false, 2],
    ["\u{1F1F9}\u{1F1FC}\u{1F1F9}\u{1F1FC}", 3, false, 4],
    ["x \u0301y", 3, true, 3],
    ["abc", 0, false, 0],
    ["abc", 3, true, 3],
  ])("%j at %i chars (wordWrap %s) cuts at %i", (input, maxChars, wordWrap, expected) => {
    expect(graphemeCut(input, maxChars, wordWrap)).toBe(expected);
  });

  // Work proportional to the whole text per cut made splitting a long line quadratic: the
  // segmenter copies what it is given, so count the text handed to it.
  it("segments the room and one scalar more, not the rest of the text", () => {
    const segment = vi.spyOn(Intl.Segmenter.prototype, "segment");
    try {
      expect(graphemeCut("x".repeat(2 ** 20), 4096, true)).toBe(4096);
      expect(graphemeCut("\u{1F600}".repeat(2 ** 20), 4096, false)).toBe(8192);
      const segmented = segment.mock.calls.reduce((sum, [input]) => sum + charCount(input), 0);
      expect(segmented).toBeLessThanOrEqual(2 * 4097);
    } finally {
      segment.mockRestore();
    }
  });
});
