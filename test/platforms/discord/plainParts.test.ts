import { describe, expect, it } from "vitest";
import { charCount } from "../../../operators/delivery/text/graphemes.js";
import { escapeMarkdown } from "../../../src/platforms/discord/escapeMarkdown.js";
import { plainPart, plainParts } from "../../../src/platforms/discord/plainParts.js";
import { shownText } from "../../fakes/discord/shownText.js";

/** Discord's escape undone: what a backslash before a mark leaves. */
const unescaped = (content: string) => content.replace(/\\([^0-9A-Za-z\s])/g, "$1");

describe("escapeMarkdown: Discord shows the text as written", () => {
  it.each([
    ["Run `echo $((6*7))`?", "Run \\`echo $((6\\*7))\\`?"],
    ["*bold* _x_ __u__ ~~s~~ ||sp||", "\\*bold\\* \\_x\\_ \\_\\_u\\_\\_ \\~\\~s\\~\\~ \\|\\|sp\\|\\|"],
    ["[a](http://x)", "\\[a\\](http\\://x)"],
    ["<@123> <@&456> <#789> @everyone @here a & b", "\\<\\@123> \\<\\@&456> \\<#789> \\@everyone \\@here a & b"],
    ["C:\\tmp\\*", "C:\\\\tmp\\\\\\*"],
    ["# h\n## h\n-# s\n- a\n+ b\n> q\n>>> r\n12. n\n  - nested", "\\# h\n\\## h\n\\-# s\n\\- a\n\\+ b\n\\> q\n\\>>> r\n12\\. n\n  \\- nested"],
    // Marks Discord reads only at a line's start stay bare elsewhere: the text grows no more than it must.
    ["a # b - c > d 1. e + f", "a # b - c > d 1. e + f"],
    ["time: 12:30, ratio 1:2 (ok).", "time: 12:30, ratio 1:2 (ok)."],
  ])("%j → %j", (text, escaped) => {
    expect(escapeMarkdown(text)).toBe(escaped);
    expect(unescaped(escaped)).toBe(text);
    expect(shownText(escaped)).toBe(text);
  });
});

describe("plainParts: a plain text as Discord messages of at most the limit", () => {
  it("a text that fits, escaped, is one part", () => {
    expect(plainParts("*a*", 2000)).toEqual(["\\*a\\*"]);
    expect(plainParts("", 2000)).toEqual([""]);
  });

  it("a text within the limit that escaping takes over it is split on lines, each part within the limit", () => {
    const line = "*".repeat(60);
    const text = Array.from({ length: 30 }, () => line).join("\n");
    expect(charCount(text)).toBeLessThanOrEqual(2000);
    const parts = plainParts(text, 2000);
    expect(parts).toHaveLength(2);
    for (const part of parts) expect(charCount(part)).toBeLessThanOrEqual(2000);
    // 16 escaped lines of 120 and their 15 line breaks make 1935; a 17th would make 2056.
    expect(parts.map((part) => part.split("\n").length)).toEqual([16, 14]);
    expect(parts.map(unescaped).join("\n")).toBe(text);
    expect(parts.map((part) => shownText(part)).join("\n")).toBe(text);
  });

  it("a line too long alone is cut after its last space that fits, never between a backslash and its mark", () => {
    const text = `${"a_b ".repeat(10)}end`;
    const parts = plainParts(text, 20);
    for (const part of parts) {
      expect(charCount(part)).toBeLessThanOrEqual(20);
      expect(part).not.toMatch(/(^|[^\\])(\\\\)*\\$/);
    }
    expect(parts.map(unescaped).join("")).toBe(text);
    expect(parts[0]).toBe("a\\_b a\\_b a\\_b a\\_b ");
  });

  it("a line with no space is cut on a grapheme cluster boundary", () => {
    const family = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}";
    const text = `${"*".repeat(9)}${family}${"_".repeat(9)}`;
    const parts = plainParts(text, 10);
    expect(parts.every((part) => charCount(part) <= 10)).toBe(true);
    expect(parts.map(unescaped).join("")).toBe(text);
    expect(parts.some((part) => part.includes(family))).toBe(true);
  });

  it("a part's first line escapes as a line's start, since it starts a message", () => {
    // "- b" is mid-line in the text; cut there, it opens the second message and would be a bullet.
    const parts = plainParts("aaaa - b", 6);
    expect(parts).toEqual(["aaaa ", "\\- b"]);
    expect(shownText(parts[1]!)).toBe("- b");
  });

  it("a part that would show nothing is not sent; the limit must leave room for one escaped character", () => {
    expect(plainParts(`${"x".repeat(10)}\n   \n${"y".repeat(10)}`, 10)).toEqual(["x".repeat(10), "y".repeat(10)]);
    expect(() => plainParts("x", 1)).toThrow(RangeError);
  });
});

describe("plainPart: one message for a call that cannot be split", () => {
  it("the whole text when it fits, else its start and …, within the limit", () => {
    expect(plainPart("*a*", 2000)).toBe("\\*a\\*");
    const cut = plainPart("*".repeat(30), 21);
    expect(cut).toBe(`${"\\*".repeat(10)}…`);
    expect(charCount(cut)).toBe(21);
    expect(plainPart("ab*", 4)).toBe("ab\\*");
    expect(plainPart("ab**", 4)).toBe("ab…");
    expect(() => plainPart("x", 2)).toThrow(RangeError);
  });
});
