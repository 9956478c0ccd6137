import { describe, expect, it } from "vitest";
import { SECTION_TEXT_LIMIT, sectionTexts } from "../../../src/platforms/slack/sectionTexts.js";

const chars = (text: string) => Array.from(text).length;

describe("sectionTexts: a mrkdwn text as section blocks' texts", () => {
  it("a text within 3000 characters is one section, as written; an empty or blank one is none", () => {
    expect(sectionTexts("*Run* `ls`?\nAllow it?")).toEqual(["*Run* `ls`?\nAllow it?"]);
    const full = "a".repeat(SECTION_TEXT_LIMIT - 8);
    expect(sectionTexts(full)).toEqual([full]);
    expect(sectionTexts("")).toEqual([]);
    expect(sectionTexts(" \n\n ")).toEqual([]);
  });

  it("a longer text is cut between lines, every part within 3000 characters, nothing lost", () => {
    const lines = Array.from({ length: 120 }, (_, index) => `line ${index} ${"x".repeat(40)}`);
    const parts = sectionTexts(lines.join("\n"));
    expect(parts.length).toBe(2);
    for (const part of parts) expect(chars(part)).toBeLessThanOrEqual(SECTION_TEXT_LIMIT);
    expect(parts.join("\n")).toBe(lines.join("\n"));
  });

  it("a line longer than a section is cut at a space, else at the limit but never inside <…> or an emoji", () => {
    const words = Array.from({ length: 800 }, (_, index) => `w${index}`).join(" ");
    const byWords = sectionTexts(words, 100);
    expect(byWords.join("")).toBe(words);
    for (const part of byWords) expect(chars(part)).toBeLessThanOrEqual(100);
    expect(byWords.slice(0, -1).every((part) => part.endsWith(" "))).toBe(true);
    const link = `${"a".repeat(80)}<https://example.com/a/long/path|docs>${"b".repeat(80)}`;
    const linked = sectionTexts(link, 100);
    expect(linked.join("")).toBe(link);
    expect(linked[1]!.startsWith("<https://example.com")).toBe(true);
    const emoji = "😀".repeat(250);
    const emojiParts = sectionTexts(emoji, 100);
    expect(emojiParts.join("")).toBe(emoji);
    for (const part of emojiParts) expect(part).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it("a code block cut in two is closed at the end of one part and opened again at the next", () => {
    const code = Array.from({ length: 30 }, (_, index) => `print(${index})`).join("\n");
    const parts = sectionTexts(`Here:\n\`\`\`\n${code}\n\`\`\`\nDone.`, 120);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(chars(part)).toBeLessThanOrEqual(120);
      expect((part.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(parts.at(-1)!.endsWith("```\nDone.")).toBe(true);
  });

  it("a fence the text never closed is not closed for it", () => {
    expect(sectionTexts("```\nopen code")).toEqual(["```\nopen code"]);
  });

  it("with fences: false (plain text) nothing is added: the parts joined are the text, each within the whole limit, never cut inside an entity", () => {
    const code = Array.from({ length: 30 }, (_, index) => `print(${index})`).join("\n");
    const text = `Here:\n\`\`\`\n${code}\n\`\`\`\nDone.`;
    const parts = sectionTexts(text, 120, { fences: false });
    expect(parts.join("\n")).toBe(text);
    for (const part of parts) expect(chars(part)).toBeLessThanOrEqual(120);
    expect(sectionTexts("x".repeat(120), 120, { fences: false })).toEqual(["x".repeat(120)]);
    const escaped = "&amp;".repeat(50);
    const cut = sectionTexts(escaped, 102, { fences: false });
    expect(cut.join("")).toBe(escaped);
    for (const part of cut) expect(part).toMatch(/^(?:&amp;)+$/);
  });
});
