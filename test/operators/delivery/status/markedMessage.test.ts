import { describe, expect, it } from "vitest";
import { charCount } from "../../../../operators/delivery/text/graphemes.js";
import { markedChunks, markedPreview, markedText } from "../../../../operators/delivery/status/markedMessage.js";
import { expectLinear } from "../../../helpers/linearTime.js";

const MARKER = "♻️ Recovered reply — part of it may already have arrived above:";

describe("markedText", () => {
  it("puts the marker above the text, a blank line between", () => {
    expect(markedText(MARKER, "hello")).toBe(`${MARKER}\n\nhello`);
  });
});

describe("markedPreview", () => {
  it("keeps the marker and the whole text while both fit", () => {
    expect(markedPreview(MARKER, "word1 word2", 4096)).toBe(`${MARKER}\n\nword1 word2`);
  });

  it("keeps the marker and the text's tail within the limit when the text is long (by code points)", () => {
    const limit = 300;
    const text = `${"a".repeat(500)}🎉end`;
    const shown = markedPreview(MARKER, text, limit);
    expect(shown.startsWith(`${MARKER}\n\n…`)).toBe(true);
    expect(shown.endsWith("🎉end")).toBe(true);
    expect(charCount(shown)).toBeLessThanOrEqual(limit);
  });

  it("re-previews a text streamingEdits already cut to the limit: still within it, the tail kept", () => {
    const limit = 4096;
    const cut = `…${"x".repeat(limit - 100)}`;
    const shown = markedPreview(MARKER, cut, limit);
    expect(charCount(shown)).toBeLessThanOrEqual(limit);
    expect(shown.startsWith(`${MARKER}\n\n…x`)).toBe(true);
  });

  it("is linear: a megabyte of text under the marker is cut at once", () => {
    const text = (chars: number) => "y".repeat(chars);
    expect(charCount(markedPreview(MARKER, text(1_000_000), 4096))).toBeLessThanOrEqual(4096);
    expectLinear(text, (long) => markedPreview(MARKER, long, 4096), 1_000_000);
  });
});

describe("markedChunks", () => {
  it("marks the first chunk when marker and chunk fit in the limit, the rest as they are", () => {
    expect(markedChunks(MARKER, ["one", "two"], 4096)).toEqual([`${MARKER}\n\none`, "two"]);
  });

  it("sends the marker alone before every chunk when the first would overflow, cutting nothing", () => {
    const full = "z".repeat(100);
    expect(markedChunks(MARKER, [full, "two"], 120)).toEqual([MARKER, full, "two"]);
  });

  it("counts the limit in code points, as the platforms do", () => {
    const limit = charCount(markedText(MARKER, "🎉🎉"));
    expect(markedChunks(MARKER, ["🎉🎉"], limit)).toEqual([markedText(MARKER, "🎉🎉")]);
    expect(markedChunks(MARKER, ["🎉🎉🎉"], limit)).toEqual([MARKER, "🎉🎉🎉"]);
  });

  it("is the marker alone for a reply of no chunks", () => {
    expect(markedChunks(MARKER, [], 4096)).toEqual([MARKER]);
  });
});
