import { describe, expect, it } from "vitest";
import { parseHtml } from "./htmlText.js";
import { parseLegacyMarkdown } from "./legacyMarkdown.js";
import { parseMarkdownV2 } from "./markdownV2.js";

describe("fake Bot API: parse modes as Telegram reads them", () => {
  it("legacy Markdown: entities at UTF-16 offsets, errors at UTF-8 byte offsets, no nesting", () => {
    expect(parseLegacyMarkdown("😀 *bold* _it_")).toEqual({
      text: "😀 bold it",
      entities: [
        { type: "bold", offset: 3, length: 4 },
        { type: "italic", offset: 8, length: 2 },
      ],
    });
    expect(() => parseLegacyMarkdown("😀 *bold")).toThrow("Can't find end of the entity starting at byte offset 5");
    // Inside bold, _ is plain text: legacy Markdown does not nest.
    expect(parseLegacyMarkdown("*a_b*")).toEqual({ text: "a_b", entities: [{ type: "bold", offset: 0, length: 3 }] });
    expect(parseLegacyMarkdown("snake\\_case")).toEqual({ text: "snake_case", entities: [] });
  });

  it("legacy Markdown: pre with a language, links, user mentions, an empty marker pair", () => {
    expect(parseLegacyMarkdown("```ts\nconst a = 1;\n```")).toEqual({ text: "const a = 1;\n", entities: [{ type: "pre", offset: 0, length: 13, language: "ts" }] });
    expect(parseLegacyMarkdown("[site](https://example.org) [me](tg://user?id=42)").entities).toEqual([
      { type: "text_link", offset: 0, length: 4, url: "https://example.org" },
      { type: "text_mention", offset: 5, length: 2, user: { id: 42, is_bot: false, first_name: "" } },
    ]);
    expect(parseLegacyMarkdown("a ** b")).toEqual({ text: "a  b", entities: [] });
  });

  it("MarkdownV2: nesting, underline and spoiler, escapes, block quotes; reserved characters and unclosed entities refused", () => {
    expect(parseMarkdownV2("*bold _both_* __u__ ||s|| ~x~ \\!")).toEqual({
      text: "bold both u s x !",
      entities: [
        { type: "bold", offset: 0, length: 9 },
        { type: "italic", offset: 5, length: 4 },
        { type: "underline", offset: 10, length: 1 },
        { type: "spoiler", offset: 12, length: 1 },
        { type: "strikethrough", offset: 14, length: 1 },
      ],
    });
    expect(parseMarkdownV2(">quoted\n>more\nafter")).toEqual({ text: "quoted\nmore\nafter", entities: [{ type: "blockquote", offset: 0, length: 12 }] });
    expect(parseMarkdownV2("[a](https://example.org/x\\)y)").entities).toEqual([{ type: "text_link", offset: 0, length: 1, url: "https://example.org/x)y" }]);
    expect(() => parseMarkdownV2("a-b")).toThrow("Character '-' is reserved and must be escaped with the preceding '\\'");
    expect(() => parseMarkdownV2("x *bold")).toThrow("Can't find end of Bold entity at byte offset 2");
    expect(() => parseMarkdownV2("```py\ncode")).toThrow("Can't find end of PreCode entity at byte offset 0");
    expect(parseMarkdownV2("`a.b-c`")).toEqual({ text: "a.b-c", entities: [{ type: "code", offset: 0, length: 5 }] });
  });

  it("HTML: tags and their synonyms, links, pre with a code language, character references; tag errors refused", () => {
    expect(parseHtml('<b>b</b><strong>s</strong> <a href="https://example.org">l</a> &lt;&#33;&gt;')).toEqual({
      text: "bs l <!>",
      entities: [
        { type: "bold", offset: 0, length: 1 },
        { type: "bold", offset: 1, length: 1 },
        { type: "text_link", offset: 3, length: 1, url: "https://example.org" },
      ],
    });
    expect(parseHtml('<pre><code class="language-ts">x</code></pre>').entities).toEqual([{ type: "pre", offset: 0, length: 1, language: "ts" }]);
    expect(parseHtml('<code class="language-ts">x</code>').entities).toEqual([{ type: "code", offset: 0, length: 1 }]);
    expect(() => parseHtml("<b>x</i>")).toThrow('Unmatched end tag at byte offset 4, expected "</b>", found "</i>"');
    expect(() => parseHtml("<b>x")).toThrow('Can\'t find end tag corresponding to start tag "b"');
    expect(() => parseHtml("x</b>")).toThrow("Unexpected end tag at byte offset 1");
    expect(() => parseHtml("<span>x</span>")).toThrow('Tag "span" must have class "tg-spoiler" at byte offset 0');
  });
});
