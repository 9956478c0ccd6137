import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { outboundFileName } from "../../../../operators/delivery/files/outboundFileName.js";
import { expectLinear } from "../../../helpers/linearTime.js";

describe("outboundFileName", () => {
  it("keeps a plain name", () => {
    expect(outboundFileName("report.pdf", "file")).toBe("report.pdf");
    expect(outboundFileName("图表 2026.png", "file")).toBe("图表 2026.png");
  });

  it("is the fallback when the agent gave no name, an empty one, or only what is removed", () => {
    expect(outboundFileName(undefined, "image.png")).toBe("image.png");
    expect(outboundFileName("", "file")).toBe("file");
    expect(outboundFileName("   ", "file")).toBe("file");
    expect(outboundFileName("\u0000\u0007\u200b\u202e", "file")).toBe("file");
    expect(outboundFileName("dir/", "file")).toBe("file");
    expect(outboundFileName("a\\b\\", "file")).toBe("file");
  });

  it("never shows a path: the last segment after / or \\", () => {
    expect(outboundFileName("/home/agent/work/out/report.pdf", "file")).toBe("report.pdf");
    expect(outboundFileName("../../etc/passwd", "file")).toBe("passwd");
    expect(outboundFileName("C:\\Users\\me\\chart.png", "file")).toBe("chart.png");
    expect(outboundFileName("a/b\\c/d.txt", "file")).toBe("d.txt");
    expect(outboundFileName("a\\b/c\\d.txt", "file")).toBe("d.txt");
  });

  it("is never . or ..", () => {
    expect(outboundFileName(".", "file")).toBe("file");
    expect(outboundFileName("..", "file")).toBe("file");
    expect(outboundFileName("x/..", "file")).toBe("file");
    expect(outboundFileName(" .. ", "file")).toBe("file");
    expect(outboundFileName(".\u200b.", "file")).toBe("file");
    expect(outboundFileName("...", "file")).toBe("...");
    expect(outboundFileName(".env", "file")).toBe(".env");
  });

  it("removes control and invisible format characters a name could hide behind", () => {
    expect(outboundFileName("re\u0000po\u001brt\u007f.pdf", "file")).toBe("report.pdf");
    // U+202E RIGHT-TO-LEFT OVERRIDE: "invoice‮fdp.exe" shows as "invoiceexe.pdf".
    expect(outboundFileName("invoice\u202efdp.exe", "file")).toBe("invoicefdp.exe");
    expect(outboundFileName("a\u200bb\u200d\ufeffc.txt", "file")).toBe("abc.txt");
    expect(outboundFileName("two\nlines\r.txt", "file")).toBe("twolines.txt");
    expect(outboundFileName("next\u0085line.txt", "file")).toBe("nextline.txt");
  });

  it("removes line and paragraph separators: a name is shown on one line (a notice, a caption)", () => {
    expect(outboundFileName("report.pdf\u2028(0 B) was sent", "file")).toBe("report.pdf(0 B) was sent");
    expect(outboundFileName("a\u2029b.txt", "file")).toBe("ab.txt");
  });

  it("trims surrounding whitespace", () => {
    expect(outboundFileName("  report.pdf\t", "file")).toBe("report.pdf");
    expect(outboundFileName("dir/  spaced name.txt  ", "file")).toBe("spaced name.txt");
  });

  it("keeps at most 200 characters (code points, so no emoji is cut in half)", () => {
    expect(outboundFileName("a".repeat(250), "file")).toBe("a".repeat(200));
    const emoji = outboundFileName("😀".repeat(300), "file");
    expect([...emoji]).toHaveLength(200);
    expect(emoji).toBe("😀".repeat(200));
  });

  it("is linear: long names of slashes and hidden characters", () => {
    const names = {
      slashes: (count: number) => "a/\\\u200b".repeat(count),
      hidden: (count: number) => `${"\u200b".repeat(count)}x`,
      accented: (count: number) => "é".repeat(count),
    };
    expect(outboundFileName(names.slashes(1_000_000), "file")).toBe("file");
    expect(outboundFileName(names.hidden(500_000), "file")).toBe("x");
    expect(outboundFileName(names.accented(1_000_000), "file")).toBe("é".repeat(200));
    expectLinear(names.slashes, (name) => outboundFileName(name, "file"), 1_000_000, "slashes");
    expectLinear(names.hidden, (name) => outboundFileName(name, "file"), 500_000, "hidden");
    expectLinear(names.accented, (name) => outboundFileName(name, "file"), 1_000_000, "accented");
  });
});

describe("outboundFileName: properties", () => {
  // Any code point (lone surrogates included), with the separators and hidden characters made likely.
  const piece = fc.oneof(
    { arbitrary: fc.string({ unit: "binary", maxLength: 40 }), weight: 3 },
    { arbitrary: fc.constantFrom("/", "\\", "..", ".", " ", "\u0000", "\n", "\u202e", "\u200b", "\u2028", "\u0085", "\ufeff", "😀"), weight: 2 },
    { arbitrary: fc.string({ unit: "grapheme", minLength: 150, maxLength: 260 }), weight: 1 },
  );
  const name = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(""));

  test.prop([name], { numRuns: 300 })("never a path separator, a control, format or line character; 1 to 200 code points; never . or ..", (given) => {
    const shown = outboundFileName(given, "file");
    expect(shown).not.toMatch(/[/\\]/);
    expect(shown).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
    const codePoints = [...shown].length;
    expect(codePoints).toBeGreaterThan(0);
    expect(codePoints).toBeLessThanOrEqual(200);
    expect(shown).not.toBe(".");
    expect(shown).not.toBe("..");
  });

  test.prop([name], { numRuns: 300 })("is the given name's last segment, only ever shortened or cleaned", (given) => {
    const shown = outboundFileName(given, "\u0000fallback");
    if (shown === "\u0000fallback") return;
    const last = given.split(/[/\\]/).at(-1) ?? "";
    const cleaned = last.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, "");
    expect(cleaned).toContain(shown.trim());
  });
});
