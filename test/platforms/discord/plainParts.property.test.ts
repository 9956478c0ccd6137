import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { charCount } from "../../../operators/delivery/text/graphemes.js";
import { escapeMarkdown } from "../../../src/platforms/discord/escapeMarkdown.js";
import { plainPart, plainParts } from "../../../src/platforms/discord/plainParts.js";
import { shownText } from "../../fakes/discord/shownText.js";

const runs = { numRuns: 300 };

/** Discord's escape undone: what a backslash before a mark leaves. */
const unescaped = (content: string) => content.replace(/\\([^0-9A-Za-z\s])/g, "$1");

// Every mark Discord reads, in the places it reads them, among words, digits, spaces and wide clusters.
const piece = fc.constantFrom(
  "*", "**", "_", "__", "~~", "||", "`", "```", "```js\n", "\\", "[a](http://x)", "[", "]", "(", ")",
  "<@123>", "<@&456>", "<#789>", "<:e:1>", "<t:0>", "</c:2>", "@everyone", "@here", "&", ">", ">>> ", "> ",
  "# ", "## ", "-# ", "- ", "+ ", "1. ", "12.", ":", "://", "http://x/a_b", "https://y", "a", "word", "42", " ", "  ", "\n",
  "\n\n", "é", "好", "🎉", "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}",
);
const text = fc.array(piece, { maxLength: 80 }).map((pieces) => pieces.join(""));

describe("plain text on Discord (generated)", () => {
  test.prop([text], runs)("escaped, the fake's Discord shows exactly the text, and undoing the escapes gives it back", (plain) => {
    const escaped = escapeMarkdown(plain);
    expect(shownText(escaped)).toBe(plain);
    expect(unescaped(escaped)).toBe(plain);
  });

  test.prop([text, fc.integer({ min: 2, max: 60 })], runs)("split, every part fits and shows the next stretch of the text", (plain, limit) => {
    const parts = plainParts(plain, limit);
    let from = 0;
    for (const part of parts) {
      expect(charCount(part)).toBeLessThanOrEqual(limit);
      const shown = shownText(part);
      expect(unescaped(part)).toBe(shown);
      // Parts follow each other in the text; only line breaks and blanks fall between them.
      const at = plain.indexOf(shown, from);
      expect(at).toBeGreaterThanOrEqual(0);
      expect(plain.slice(from, at).trim()).toBe("");
      from = at + shown.length;
    }
    expect(plain.slice(from).trim()).toBe("");
  });

  test.prop([text, fc.integer({ min: 3, max: 60 })], runs)("cut to one message, it fits and shows the text's start", (plain, limit) => {
    const part = plainPart(plain, limit);
    expect(charCount(part)).toBeLessThanOrEqual(limit);
    const shown = shownText(part);
    if (shown !== plain) {
      expect(shown.endsWith("…")).toBe(true);
      expect(plain.startsWith(shown.slice(0, -1))).toBe(true);
    }
  });
});
