import { describe, expect, it } from "vitest";
import { isComplexMarkdown } from "../../../src/platforms/telegram/richText.js";

describe("isComplexMarkdown (reference §6.5, test_is_complex_markdown)", () => {
  it.each([
    ["# Title", "an h1"],
    ["intro\n## Plan\nsteps", "a heading after a paragraph line"],
    ["###### six", "an h6"],
    ["   ### indented by three", "three spaces of indent"],
    ["##\ttab", "a tab after the hashes"],
    ["# ", "an empty heading"],
    ["| a | b |\n|---|---|", "a table"],
    ["| a | b |\n| :--- | ---: |", "aligned columns"],
    ["| a | b | c |\n|:-:|-|--:|", "centred, one dash"],
    ["a | b\n--- | ---", "no pipes at the ends"],
    ["| one |\n| --- |", "one column between pipes"],
    ["name\n:---", "one column, a colon and no pipe"],
    ["| a \\| b |\n| --- |", "an escaped pipe stays in its cell"],
    ["| a | b |\n|---|---|\n| 1 | 2 |", "a table with a body"],
    ["```\ncode\n```\n# after the fence", "a heading after a closed fence"],
    ["``` js `x`\n# y", "backticks in a backtick fence's info: inline code, no fence"],
    ["intro\r\n## Plan\r\n", "CRLF line endings"],
    ["| a | b |\r\n|---|---|\r\n", "a table with CRLF"],
    ["| a | b |\r|---|---|", "CR line endings"],
  ])("%j is complex (%s)", (text) => expect(isComplexMarkdown(text)).toBe(true));

  it.each([
    ["Hello world", "plain text"],
    ["*bold* and _italic_", "legacy Markdown"],
    ["#hashtag no space", "a hashtag"],
    ["#", "a lone #"],
    ["####### seven", "seven hashes"],
    ["    # four spaces", "indented code"],
    ["\t# tab", "a tab indents to code"],
    ["see issue # 4", "# mid-line"],
    ["```\n# not a heading\n```", "a heading in a backtick fence"],
    ["~~~\n# not a heading\n~~~", "a heading in a tilde fence"],
    ["```\n| a | b |\n|---|---|\n```", "a table in a fence"],
    ["````\n```\n# still code\n````", "a shorter fence does not close a longer one"],
    ["~~~\n```\n# still code", "a backtick line does not close a tilde fence"],
    ["```\n# unclosed fence runs to the end", "an unclosed fence"],
    ["```\r\n# x\r\n```\r\n", "a fence with CRLF"],
    ["---", "a lone --- (thematic break)"],
    ["text\n---", "a setext underline"],
    ["| just | pipes |", "pipes without a delimiter row"],
    ["|---|---|", "a delimiter row without a header"],
    ["| a | b |\n\n|---|---|", "a blank line between"],
    ["| a | b |\n|---|", "cell counts differ"],
    ["| a | b |\n|- -|---|", "a space inside the dashes"],
    ["| a | b |\n|:|---|", "a cell without a dash"],
    ["| a | b |\n    |---|---|", "a delimiter row indented as code"],
    ["```\n| a | b |\n```\n|---|---|", "the header row inside a fence"],
    ["", "empty"],
  ])("%j is not complex (%s)", (text) => expect(isComplexMarkdown(text)).toBe(false));

  it("reads large pathological inputs in linear time (a backtracking regex would not finish)", () => {
    const n = 100_000;
    expect(isComplexMarkdown("#".repeat(n))).toBe(false);
    expect(isComplexMarkdown(`${"| a ".repeat(n)}\n${"|-".repeat(n)}x`)).toBe(false);
    expect(isComplexMarkdown(`${"| a ".repeat(n)}|\n${"|-".repeat(n)}|`)).toBe(true);
    expect(isComplexMarkdown(`${"-".repeat(n)}:x`)).toBe(false);
    expect(isComplexMarkdown("```\n" + "# x\n".repeat(n))).toBe(false);
    expect(isComplexMarkdown("a\n\\".repeat(n))).toBe(false);
  });
});
