import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { BlockChunker, type BlockChunkerSettings } from "../../../../operators/delivery/blocks/blockChunker.js";

const F = "```";
/** 👨‍👩‍👧‍👦: one grapheme cluster of 11 UTF-16 units (four people joined by three ZWJs). */
const FAMILY = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}";
const FLAG = "\u{1F1F9}\u{1F1FC}";

const PARAGRAPH: BlockChunkerSettings = { minChars: 800, maxChars: 1200, breakPreference: "paragraph" };

/** Feeds `text` in deltas of `step` units, then flushes. */
function chunk(text: string, settings: BlockChunkerSettings, step = 50): string[] {
  const chunker = new BlockChunker(settings);
  const blocks: string[] = [];
  for (let at = 0; at < text.length; at += step) blocks.push(...chunker.push(text.slice(at, at + step)));
  return [...blocks, ...chunker.flush()];
}

/** Feeds `text` cut at `cuts` (offsets, any order), then flushes. */
function chunkAt(text: string, settings: BlockChunkerSettings, cuts: readonly number[]): string[] {
  const chunker = new BlockChunker(settings);
  const blocks: string[] = [];
  let from = 0;
  for (const to of [...new Set(cuts)].sort((a, b) => a - b)) {
    blocks.push(...chunker.push(text.slice(from, to)));
    from = to;
  }
  return [...blocks, ...chunker.push(text.slice(from)), ...chunker.flush()];
}

const FENCE_LINE = /^( {0,3})(`{3,}|~{3,})([^\r]*)\r?$/;

/** Whether every fence opened in `block` is closed in it (the scan's own rules). */
function fencesClosed(block: string): boolean {
  let open: string | undefined;
  for (const line of block.split("\n")) {
    const match = FENCE_LINE.exec(line);
    if (match === null) continue;
    const [, , marker = "", info = ""] = match;
    if (open === undefined) open = marker;
    else if (marker[0] === open[0] && marker.length >= open.length && /^[ \t]*$/.test(info)) open = undefined;
  }
  return open === undefined;
}

/** The text without its fence lines and whitespace: what no block may lose or add. */
function prose(text: string): string {
  return text
    .split("\n")
    .filter((line) => !FENCE_LINE.test(line))
    .join("\n")
    .replace(/\s+/g, "");
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

function clusterEnds(text: string): Set<number> {
  return new Set(Array.from(segmenter.segment(text), ({ index, segment }) => index + segment.length));
}

describe("BlockChunker: peers.md §6.1 vectors (deltas of 50, forced flush at the end)", () => {
  it("800 / 1200 / paragraph: breaks at the paragraph after minChars", () => {
    const input = `${"A".repeat(500)}.\n\n${"B".repeat(500)}.\n\n${"C".repeat(500)}.`;
    const blocks = chunk(input, PARAGRAPH);
    expect(blocks.map((block) => block.length)).toEqual([1004, 501]);
    expect(blocks).toEqual([`${"A".repeat(500)}.\n\n${"B".repeat(500)}.`, `${"C".repeat(500)}.`]);
  });

  it("20 / 60 / sentence: breaks at the last sentence end in the window", () => {
    const input = "First sentence here. Second sentence is a bit longer. Third one. Fourth sentence ends it.";
    const blocks = chunk(input, { minChars: 20, maxChars: 60, breakPreference: "sentence" });
    expect(blocks).toEqual(["First sentence here. Second sentence is a bit longer.", "Third one. Fourth sentence ends it."]);
    expect(blocks.map((block) => block.length)).toEqual([53, 35]);
  });

  it("100 / 300 / paragraph: a long fence is closed and reopened, the text after it goes alone", () => {
    // peers.md writes "40 × console.log(i);": its recorded lengths come from numbered lines
    // `console.log(0);` … `console.log(39);`, each ending in "\n" (OpenClaw 2026.9.6's build gives
    // [300, 300, 106, 5] for these, and [300, 300, 37 or 76, 5] for a constant `console.log(i);`).
    const code = Array.from({ length: 40 }, (_, i) => `console.log(${i});\n`).join("");
    const input = `Intro:\n${F}js\n${code}${F}\nDone.`;
    // OpenClaw's block chunker cuts inside a fence at maxChars, mid-line: its rule, pinned here.
    const blocks = chunk(input, { minChars: 100, maxChars: 300, breakPreference: "paragraph", fenceSplit: "hard" });
    expect(blocks.map((block) => block.length)).toEqual([300, 300, 106, 5]);
    const [first = "", second = "", third = "", last] = blocks;
    expect(first.startsWith(`Intro:\n${F}js\nconsole.log(0);`)).toBe(true);
    // A hard cut in the fence, as OpenClaw's: mid-line, closed with the marker on its own line.
    expect(first.endsWith(`console.log(16);\ncons\n${F}`)).toBe(true);
    expect(second.startsWith(`${F}js\nole.log(17);`) && second.endsWith(`\n${F}`)).toBe(true);
    expect(third).toBe(`${F}js\n${"le.log(34);\n"}${code.slice(code.indexOf("console.log(35)"))}${F}`);
    expect(last).toBe("Done.");
  });
});

describe("BlockChunker: breaks", () => {
  it("emits nothing before minChars, and reports what it holds", () => {
    const chunker = new BlockChunker(PARAGRAPH);
    expect(chunker.push("a.\n\n".repeat(125))).toEqual([]);
    expect(chunker.buffered).toBe(500);
    expect(chunker.flush()).toEqual(["a.\n\n".repeat(124) + "a.\n\n"]);
    expect(chunker.buffered).toBe(0);
  });

  it("cuts only once the text reaches past maxChars, so later text can still move the break", () => {
    const settings: BlockChunkerSettings = { minChars: 10, maxChars: 40, breakPreference: "paragraph" };
    const chunker = new BlockChunker(settings);
    expect(chunker.push(`${"a".repeat(15)}\n${"b".repeat(10)}`)).toEqual([]);
    // The paragraph that arrives later beats the earlier line end.
    expect(chunker.push(`\n\n${"c".repeat(20)}`)).toEqual([`${"a".repeat(15)}\n${"b".repeat(10)}`]);
    expect(chunker.flush()).toEqual(["c".repeat(20)]);
  });

  it.each([
    { preference: "paragraph", blocks: ["aaaa", "bbbb cc.\ndd. eeee\nffff"] },
    { preference: "newline", blocks: ["aaaa\n\nbbbb cc.\ndd. eeee", "ffff"] },
    { preference: "sentence", blocks: ["aaaa\n\nbbbb cc.\ndd.", "eeee\nffff"] },
  ] as const)("$preference: the preferred break, searched back from maxChars", ({ preference, blocks }) => {
    const input = "aaaa\n\nbbbb cc.\ndd. eeee\nffff";
    expect(chunk(input, { minChars: 4, maxChars: 26, breakPreference: preference }, 1)).toEqual(blocks);
  });

  it("falls back to the last whitespace, then to a hard cut at maxChars", () => {
    const settings: BlockChunkerSettings = { minChars: 5, maxChars: 12, breakPreference: "paragraph" };
    expect(chunk("alpha beta gamma delta", settings)).toEqual(["alpha beta", "gamma delta"]);
    expect(chunk("x".repeat(30), settings)).toEqual(["x".repeat(12), "x".repeat(12), "x".repeat(6)]);
  });

  it("never breaks before minChars: a break too early is passed over", () => {
    const settings: BlockChunkerSettings = { minChars: 8, maxChars: 12, breakPreference: "newline" };
    expect(chunk("ab\ncdefghijklmnop", settings)).toEqual(["ab\ncdefghijk", "lmnop"]);
  });

  it("drops the separator and the newlines after a break, and the newlines a text starts with", () => {
    const settings: BlockChunkerSettings = { minChars: 1, maxChars: 10, breakPreference: "paragraph" };
    expect(chunk("\n\nfirst one\n\n\n\nsecond", settings, 1)).toEqual(["first one", "second"]);
  });

  it("keeps a CR LF together", () => {
    const settings: BlockChunkerSettings = { minChars: 1, maxChars: 9, breakPreference: "newline" };
    expect(chunk("line one\r\nline two\r\n", settings, 1)).toEqual(["line one", "line two"]);
  });
});

describe("BlockChunker: fences", () => {
  const settings: BlockChunkerSettings = { minChars: 10, maxChars: 40, breakPreference: "paragraph" };

  it("never breaks inside a fence when a break outside it fits", () => {
    const input = `Some text.\n\n${F}\none\n\ntwo\n${F}\nmore text here`;
    expect(chunk(input, { ...settings, minChars: 1 }, 1)).toEqual(["Some text.", `${F}\none\n\ntwo\n${F}\nmore text here`]);
  });

  it("moves a whole fence that fits to the next block instead of splitting it", () => {
    const input = `${"p".repeat(20)}\n${F}\n${"c".repeat(20)}\n${F}`;
    expect(chunk(input, settings)).toEqual(["p".repeat(20), `${F}\n${"c".repeat(20)}\n${F}`]);
  });

  it("closes a fence split by a hard cut and reopens it with the opener line", () => {
    const input = `${F}ts\n${"x".repeat(70)}\n${F}`;
    const blocks = chunk(input, settings);
    expect(blocks).toEqual([`${F}ts\n${"x".repeat(30)}\n${F}`, `${F}ts\n${"x".repeat(30)}\n${F}`, `${F}ts\n${"x".repeat(10)}\n${F}`]);
  });

  it("reopens with the bare marker when the opener line does not fit twice, and with tildes for tildes", () => {
    const opener = `~~~${"i".repeat(30)}`; // 33 + 3 + 3 > 38
    const blocks = chunk(`${opener}\n${"y".repeat(60)}\n~~~`, { minChars: 1, maxChars: 38, breakPreference: "paragraph" });
    expect(blocks[0]?.startsWith(`${opener}\n`)).toBe(true);
    expect(blocks.slice(1).every((block) => block.startsWith("~~~\ny") && block.endsWith("\n~~~"))).toBe(true);
    expect(blocks.every((block) => block.length <= 38)).toBe(true);
  });

  it("hard-cuts without closing when not even two markers fit (2 × marker + 3 > maxChars)", () => {
    const blocks = chunk(`${F}\nabcdefghijkl\n${F}`, { minChars: 1, maxChars: 8, breakPreference: "paragraph" });
    expect(blocks).toEqual([`${F}\nabcd`, "efghijkl", F]);
  });

  it("never splits an opener line: the fence moves on whole", () => {
    const input = `${"p".repeat(30)}\n${F}python\n${"c".repeat(50)}\n${F}`;
    const [first, second] = chunk(input, { minChars: 1, maxChars: 40, breakPreference: "sentence" });
    expect(first).toBe("p".repeat(30));
    expect(second).toBe(`${F}python\n${"c".repeat(26)}\n${F}`);
  });

  it("ends the fence at its own closer when a cut would fall inside it", () => {
    const input = `${F}\n${"c".repeat(30)}\n${F}${" ".repeat(10)}\nafter`;
    expect(chunk(input, settings)).toEqual([`${F}\n${"c".repeat(30)}\n${F}`, "after"]);
  });

  it("sends no empty reopened fence when only whitespace was left of it", () => {
    // The split falls in the trailing spaces: the rest of the fence is only those.
    const input = `${F}\n${"c".repeat(32)}${" ".repeat(6)}\n${F}\nafter`;
    expect(chunk(input, { ...settings, minChars: 1 }, 1)).toEqual([`${F}\n${"c".repeat(32)}\n${F}`, "after"]);
  });

  it("leaves a fence the agent never closed as it was written", () => {
    expect(chunk(`text\n${F}js\nlet a`, settings)).toEqual([`text\n${F}js\nlet a`]);
  });
});

describe("BlockChunker: a cut inside a fence falls at a code line's end", () => {
  it("the peers.md §6.1 input: each block ends with its last whole line, none is cut in two", () => {
    const code = Array.from({ length: 40 }, (_, i) => `console.log(${i});\n`).join("");
    const lines = code.trimEnd().split("\n");
    const blocks = chunk(`Intro:\n${F}js\n${code}${F}\nDone.`, { minChars: 100, maxChars: 300, breakPreference: "paragraph" });
    expect(blocks).toEqual([
      `Intro:\n${F}js\n${lines.slice(0, 17).join("\n")}\n${F}`,
      `${F}js\n${lines.slice(17, 34).join("\n")}\n${F}`,
      `${F}js\n${lines.slice(34).join("\n")}\n${F}`,
      "Done.",
    ]);
    expect(blocks.map((block) => block.length)).toEqual([295, 298, 111, 5]);
  });

  it("ends a block at a line end below minChars rather than cut the next line", () => {
    const input = `${F}\n${"a".repeat(10)}\n${"b".repeat(30)}\n${F}`;
    expect(chunk(input, { minChars: 30, maxChars: 40, breakPreference: "paragraph" }, 1)).toEqual([`${F}\n${"a".repeat(10)}\n${F}`, `${F}\n${"b".repeat(30)}\n${F}`]);
  });

  it("moves a fence that starts after the block's text on whole when its first line would be cut", () => {
    const input = `${"p".repeat(10)}\n${F}ts\n${"a".repeat(26)}\n${F}`;
    expect(chunk(input, { minChars: 5, maxChars: 40, breakPreference: "paragraph" })).toEqual(["p".repeat(10), `${F}ts\n${"a".repeat(26)}\n${F}`]);
  });

  it("still cuts a line too long for any block at maxChars, closed and reopened", () => {
    const input = `${F}\n${"s".repeat(8)}\n${"x".repeat(70)}\n${"t".repeat(8)}\n${F}`;
    expect(chunk(input, { minChars: 1, maxChars: 40, breakPreference: "paragraph" })).toEqual([
      `${F}\n${"s".repeat(8)}\n${F}`,
      `${F}\n${"x".repeat(32)}\n${F}`,
      `${F}\n${"x".repeat(32)}\n${F}`,
      `${F}\n${"x".repeat(6)}\n${"t".repeat(8)}\n${F}`,
    ]);
  });

  it("drops the CR of a CR LF line end with its LF", () => {
    const input = `${F}\r\n${"a".repeat(10)}\r\n${"b".repeat(10)}\r\n${F}`;
    expect(chunk(input, { minChars: 5, maxChars: 20, breakPreference: "paragraph" }, 1)).toEqual([`${F}\r\n${"a".repeat(10)}\n${F}`, `${F}\n${"b".repeat(10)}\r\n${F}`]);
  });

  it("sends no block of blank code lines: those before a line that would be cut are dropped", () => {
    const input = `${F}\n${"a".repeat(20)}\n\n   \n${"b".repeat(20)}\n${F}`;
    expect(chunk(input, { minChars: 5, maxChars: 30, breakPreference: "paragraph" }, 1)).toEqual([`${F}\n${"a".repeat(20)}\n${F}`, `${F}\n${"b".repeat(20)}\n${F}`]);
  });
});

describe("BlockChunker: graphemes", () => {
  it("never cuts inside an emoji ZWJ sequence or a flag", () => {
    const input = `${FAMILY}${FLAG}`.repeat(20);
    const blocks = chunk(input, { minChars: 1, maxChars: 20, breakPreference: "paragraph" }, 3);
    expect(blocks.join("")).toBe(input);
    const ends = clusterEnds(input);
    let offset = 0;
    for (const block of blocks) {
      offset += block.length;
      expect(ends.has(offset)).toBe(true);
      expect(block.length).toBeLessThanOrEqual(20);
    }
  });

  it("keeps a combining mark with its letter", () => {
    const blocks = chunk("e\u0301".repeat(10), { minChars: 1, maxChars: 5, breakPreference: "newline" });
    expect(blocks).toEqual(["e\u0301e\u0301", "e\u0301e\u0301", "e\u0301e\u0301", "e\u0301e\u0301", "e\u0301e\u0301"]);
  });

  it("cuts a cluster wider than maxChars between code points, never inside a surrogate pair", () => {
    const blocks = chunk(FAMILY, { minChars: 1, maxChars: 4, breakPreference: "paragraph" });
    expect(blocks.join("")).toBe(FAMILY);
    expect(blocks.every((block) => !/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(block))).toBe(true);
  });
});

describe("BlockChunker: flush", () => {
  it("returns [] with nothing buffered, also twice", () => {
    const chunker = new BlockChunker(PARAGRAPH);
    expect(chunker.flush()).toEqual([]);
    expect(chunker.push("")).toEqual([]);
    expect(chunker.flush()).toEqual([]);
  });

  it("drops a whitespace-only rest", () => {
    const chunker = new BlockChunker(PARAGRAPH);
    chunker.push("\n\n  \n");
    expect(chunker.flush()).toEqual([]);
  });

  it("leaves the chunker empty and reusable: the next text chunks as in a new chunker", () => {
    const settings: BlockChunkerSettings = { minChars: 5, maxChars: 20, breakPreference: "paragraph" };
    const input = `${F}js\n${"z".repeat(30)}\n${F}\ntail`;
    const chunker = new BlockChunker(settings);
    chunker.push(`${F}js\n${"q".repeat(25)}`);
    chunker.flush();
    expect(chunker.buffered).toBe(0);
    expect([...chunker.push(input), ...chunker.flush()]).toEqual(chunk(input, settings));
  });

  it("rejects settings it cannot honour", () => {
    expect(() => new BlockChunker({ minChars: 1, maxChars: 0, breakPreference: "paragraph" })).toThrow(RangeError);
    expect(() => new BlockChunker({ minChars: 0, maxChars: 10, breakPreference: "paragraph" })).toThrow(RangeError);
    expect(() => new BlockChunker({ minChars: 11, maxChars: 10, breakPreference: "paragraph" })).toThrow(RangeError);
    expect(() => new BlockChunker({ minChars: 1.5, maxChars: 10, breakPreference: "paragraph" })).toThrow(RangeError);
  });
});

// Pieces that meet at every kind of break, fence line and cluster edge, arranged any way at all.
const piece = fc.constantFrom(
  "word", "longer", " ", "  ", "\t", ". ", "! ", "? ", ".", "\n", "\n\n", "\r\n", `\n${F}js\n`, `\n${F}\n`, "\n~~~\n",
  `\n${F}${F}\n`, "\n   ```", "``", "~", FAMILY, FLAG, "e\u0301", "\u00a0", "3.14", "\u{20000}",
);
const anyText = fc.array(piece, { maxLength: 160, size: "max" }).map((pieces) => pieces.join(""));
const settings = fc.record({
  minChars: fc.integer({ min: 1, max: 60 }),
  maxChars: fc.integer({ min: 1, max: 80 }),
  breakPreference: fc.constantFrom("paragraph", "newline", "sentence"),
}).map((s) => ({ ...s, minChars: Math.min(s.minChars, s.maxChars) }));

// Well-formed Markdown: prose and fences that open and close, with no fence-like line inside.
const proseLine = fc.array(fc.constantFrom("word", "longer", " ", ". ", "! ", FAMILY, "3.14"), { minLength: 1, maxLength: 12 }).map((p) => p.join(""));
const codeLine = fc.array(fc.constantFrom("let", " ", "x", "=", "1;", "  ", "()", FLAG), { maxLength: 12 }).map((p) => p.join(""));
const fenced = fc.tuple(fc.constantFrom(`${F}js`, F, "~~~", `${F}${F}`), fc.array(codeLine, { maxLength: 12 }))
  .map(([opener, lines]) => [opener, ...lines, opener.startsWith("~") ? "~~~" : opener.replace("js", "")].join("\n"));
const markdown = fc.array(fc.oneof(proseLine, fenced, fc.constant("")), { maxLength: 30, size: "max" }).map((parts) => parts.join("\n"));
const roomy = settings.filter((s) => s.maxChars >= 20);

// Fences whose code lines are each unique (a numbered head, then filler), of any length.
const numberedFence = fc
  .tuple(fc.constantFrom(`${F}js`, F, "~~~", `${F}${F}`, `  ${F}python`), fc.array(fc.tuple(fc.nat({ max: 90 }), fc.constantFrom("x", " ", "=", FLAG)), { maxLength: 14 }))
  .map(([opener, lines]) => ({ opener, lines: lines.map(([width, filler], k) => `#${k}:${filler.repeat(width)}`) }));
const numberedMarkdown = fc
  .array(fc.oneof(proseLine.map((line) => ({ prose: line })), numberedFence), { maxLength: 12 })
  .map((parts) => {
    let fence = 0;
    const numbered = parts.map((part) => ("prose" in part ? part : { ...part, lines: part.lines.map((line) => `f${fence}${line}`), id: fence++ }));
    const closer = (opener: string) => /^ *(`+|~+)/.exec(opener)?.[0] ?? F;
    const text = numbered.map((part) => ("prose" in part ? part.prose : [part.opener, ...part.lines, closer(part.opener)].join("\n"))).join("\n");
    return { text, fences: numbered.flatMap((part) => ("prose" in part ? [] : [{ opener: part.opener, closer: closer(part.opener), lines: part.lines }])) };
  });

describe("BlockChunker: properties", () => {
  test.prop([numberedMarkdown, settings.filter((s) => s.maxChars >= 12), fc.integer({ min: 1, max: 40 })], { numRuns: 2000 })(
    "a code line that fits a block beside its fence's opener and closer is never cut in two",
    ({ text, fences }, s, step) => {
      const sent = new Set(chunk(text, s, step).flatMap((block) => block.split("\n")));
      for (const { opener, closer, lines } of fences) {
        for (const line of lines) {
          if (opener.length + 1 + line.length + 1 + closer.length <= s.maxChars) expect(sent.has(line), line).toBe(true);
        }
      }
    },
  );

  test.prop([anyText, settings, fc.array(fc.nat({ max: 2000 }))], { numRuns: 1000 })(
    "the same text gives the same blocks however it is cut into deltas",
    (text, s, cuts) => {
      const whole = chunk(text, s, Math.max(text.length, 1));
      expect(chunkAt(text, s, cuts.filter((cut) => cut < text.length))).toEqual(whole);
      expect(chunk(text, s, 1)).toEqual(whole);
    },
  );

  test.prop([anyText, settings], { numRuns: 1000 })("no block is longer than maxChars, or only whitespace", (text, s) => {
    for (const block of chunk(text, s, 7)) {
      // The one exception: a surrogate pair when maxChars is 1.
      expect(block.length).toBeLessThanOrEqual(Math.max(s.maxChars, 2));
      expect(block.trim()).not.toBe("");
    }
  });

  test.prop([markdown, roomy], { numRuns: 3000 })(
    "every block closes the fences it opens, and the blocks lose or add nothing but fence lines and whitespace",
    (text, s) => {
      const blocks = chunk(text, s, 5);
      for (const block of blocks) expect(fencesClosed(block), block).toBe(true);
      expect(prose(blocks.join("\n"))).toBe(prose(text));
    },
  );

  test.prop([fc.array(fc.constantFrom(FAMILY, FLAG, "e\u0301", "a", "\u{20000}", "\r\n"), { maxLength: 80 }), settings.filter((s) => s.maxChars >= 11)], {
    numRuns: 2000,
  })("cuts only between grapheme clusters", (pieces, s) => {
    const text = pieces.join("");
    const ends = clusterEnds(text);
    let offset = 0;
    for (const block of chunk(text, s, 3)) {
      offset = text.indexOf(block, offset) + block.length;
      expect(ends.has(offset) || offset === text.length).toBe(true);
    }
  });
});

describe("BlockChunker: cost", () => {
  it("takes 1 MB in 1-unit deltas, giving the blocks of one delta (linear: no rescans)", () => {
    const parts: string[] = [];
    let length = 0;
    for (let i = 0; length < 1_000_000; i++) {
      const part =
        i % 7 === 6
          ? `${F}ts\n${Array.from({ length: 40 + (i % 60) }, (_, k) => `const v${k} = ${k * i};`).join("\n")}\n${F}`
          : Array.from({ length: 3 + (i % 9) }, (_, k) => `Sentence ${k} of paragraph ${i} says a little${k % 4 === 0 ? ` ${FAMILY}` : ""}.`).join(" ");
      parts.push(part);
      length += part.length + 2;
    }
    const text = parts.join("\n\n");
    const chunker = new BlockChunker(PARAGRAPH);
    const blocks: string[] = [];
    for (let at = 0; at < text.length; at++) blocks.push(...chunker.push(text.charAt(at)));
    blocks.push(...chunker.flush());
    expect(blocks).toEqual(chunk(text, PARAGRAPH, text.length));
    expect(blocks.every((block) => block.length <= PARAGRAPH.maxChars && fencesClosed(block))).toBe(true);
    expect(prose(blocks.join("\n"))).toBe(prose(text));
  });
});
