import { describe, expect, it, vi } from "vitest";
import { charCount } from "../../../../operators/delivery/text/graphemes.js";
import { splitMessage } from "../../../../operators/delivery/text/splitMessage.js";

const F = "```";
/** 👨‍👩‍👧‍👦: one grapheme cluster, seven scalar values (four people joined by three ZWJs). */
const FAMILY = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}";

function fenced(body: string, opener = F): string {
  return `${opener}\n${body}\n${F}`;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), ({ segment }) => segment);
}

function expectWithinLimit(chunks: string[], limit: number): void {
  for (const chunk of chunks) expect(charCount(chunk), chunk).toBeLessThanOrEqual(limit);
}

function fenceLines(chunk: string): number {
  return chunk.split("\n").filter((line) => line.startsWith(F)).length;
}

describe("splitMessage: openab-protocol.md §14.3 vectors", () => {
  const lines0to19 = Array.from({ length: 20 }, (_, i) => `line ${i}`);
  const linesBlock = (from: number, to: number) => fenced(lines0to19.slice(from, to + 1).join("\n"));

  it.each([
    { name: "under the limit", input: "hello\nworld", limit: 100, chunks: ["hello\nworld"] },
    { name: "lines", input: "aaaa\nbbbb\ncccc\ndddd", limit: 10, chunks: ["aaaa\nbbbb", "cccc\ndddd"] },
    {
      name: "plain hard split",
      input: `before\n${"y".repeat(50)}\nafter`,
      limit: 10,
      chunks: ["before", ...Array<string>(5).fill("y".repeat(10)), "after"],
    },
    {
      name: "words",
      input: "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo",
      limit: 20,
      chunks: ["alpha bravo charlie ", "delta echo foxtrot ", "golf hotel india ", "juliet kilo"],
    },
    { name: "one char over", input: "aaaaa\nbbbbb", limit: 10, chunks: ["aaaaa", "bbbbb"] },
    {
      name: "close overhead",
      input: `${F}\n${"a".repeat(40)}\n${"b".repeat(40)}\n${F}`,
      limit: 50,
      chunks: [fenced("a".repeat(40)), fenced("b".repeat(40))],
    },
    {
      name: "two blocks with tags",
      input: `text\n${F}python\ncode1\ncode2\n${F}\nmore text\n${F}js\ncode3\n${F}`,
      limit: 25,
      chunks: [`text\n${F}python\ncode1\n${F}`, `${F}python\ncode2\n${F}`, `more text\n${F}js\ncode3\n${F}`],
    },
    {
      name: "twenty lines in a block",
      input: fenced(lines0to19.join("\n")),
      limit: 30,
      chunks: [
        linesBlock(0, 2), linesBlock(3, 5), linesBlock(6, 8), linesBlock(9, 11),
        linesBlock(12, 13), linesBlock(14, 15), linesBlock(16, 17), linesBlock(18, 19),
      ],
    },
    // The table's first chunk here is the empty block "```\n```"; turnstream drops it.
    {
      name: "fenced hard split",
      input: fenced("x".repeat(100)),
      limit: 20,
      chunks: [...Array<string>(8).fill(fenced("x".repeat(12))), fenced("xxxx")],
    },
    // Likewise: the table's leading "```\n```" is dropped.
    {
      name: "closing fence over the limit",
      input: fenced("a".repeat(44)),
      limit: 50,
      chunks: [fenced("a".repeat(42)), fenced("aa")],
    },
  ])("$name (limit $limit)", ({ input, limit, chunks }) => {
    expect(splitMessage(input, limit)).toEqual(chunks);
  });

  it("the vectors' fenced chunks are the sizes the table states", () => {
    expect(fenced("a".repeat(40))).toHaveLength(48);
    expect(linesBlock(9, 11)).toHaveLength(30);
  });
});

describe("splitMessage: turnstream's decisions", () => {
  it("drops the empty code block upstream emits when the line after an opener is hard-split", () => {
    // Upstream: ["```rust\n```", "```rust\nxxxxxxxx\n```", ...]: the first message is an empty block.
    const chunks = splitMessage(fenced("x".repeat(30), `${F}rust`), 20);
    expect(chunks[0]).toBe(fenced("x".repeat(8), `${F}rust`));
    expect(chunks).not.toContain(`${F}rust\n${F}`);
    expect(chunks.join("").split("x")).toHaveLength(31);
  });

  it("drops an empty code block that makes up a whole chunk of the input as well", () => {
    expect(splitMessage(`${"a".repeat(9)}\n${F}ts\n${F}\n${"b".repeat(9)}`, 9)).toEqual(["a".repeat(9), "b".repeat(9)]);
  });

  it("keeps an empty code block that shares its chunk with other lines", () => {
    expect(splitMessage(`intro\n${F}\n${F}\n${"b".repeat(12)}`, 15)).toEqual([`intro\n${F}\n${F}`, "b".repeat(12)]);
  });

  it("returns text within the limit unchanged, even an empty code block or the empty string", () => {
    expect(splitMessage(`${F}\n${F}`, 7)).toEqual([`${F}\n${F}`]);
    expect(splitMessage("", 1)).toEqual([""]);
  });

  it("moves an opening fence line that would be cut to the next chunk", () => {
    // Upstream reserves no room for the close after an opener line and cuts it:
    // ["abcdefghijklm\n``\n```", "```py\n`py\nx\n```"], which breaks both messages' Markdown.
    expect(splitMessage(`abcdefghijklm\n${F}py\nx\n${F}`, 20)).toEqual(["abcdefghijklm", `${F}py\nx\n${F}`]);
  });

  it("throws RangeError for a limit that is not an integer >= 1", () => {
    for (const limit of [0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => splitMessage("text", limit)).toThrow(RangeError);
    }
  });
});

describe("splitMessage: as upstream does", () => {
  it("counts Unicode scalar values, not UTF-16 units", () => {
    const astral = "\u{20000}".repeat(10); // 10 chars, 20 UTF-16 units
    expect(splitMessage(astral, 10)).toEqual([astral]);
    expect(splitMessage(astral, 5)).toEqual(["\u{20000}".repeat(5), "\u{20000}".repeat(5)]);
  });

  it("drops blank lines that would start a chunk", () => {
    expect(splitMessage("abc\n\n\ndef", 4)).toEqual(["abc\n", "def"]);
  });

  it("backs up to the last whitespace whenever a plain cut leaves text behind, as upstream's code does", () => {
    // §14.2 says "if the cut would land mid-word"; upstream backs up even when the cut already
    // falls before a space, so "abc def" is not kept whole here.
    expect(splitMessage("abc def ghi", 7)).toEqual(["abc ", "def ghi"]);
  });

  it("treats Unicode White_Space as whitespace (NBSP yes, U+FEFF no), like Rust's char::is_whitespace", () => {
    expect(splitMessage("aaa\u00a0bbbbbb", 6)).toEqual(["aaa\u00a0", "bbbbbb"]);
    expect(splitMessage("aaa\ufeffbbbbbb", 6)).toEqual(["aaa\ufeffbb", "bbbb"]);
  });

  it("does not word-wrap inside a code block", () => {
    expect(splitMessage(fenced("ab cd ef gh ij kl"), 16)).toEqual([fenced("ab cd ef"), fenced(" gh ij k"), fenced("l")]);
  });

  it("leaves a chunk unclosed when a closer longer than three backticks overflows", () => {
    // Markdown closers are bare, so this needs a closer like "```ts"; pinned to show it is known.
    expect(splitMessage(`${F}\nabcde\n${F}ts`, 13)).toEqual([`${F}\nabcde`, `${F}\n${F}ts`]);
  });
});

// Ports of upstream's `format.rs` tests. `oversized_grapheme_with_mention_reserve` is not ported:
// it covers the Discord mention footer (§14.4), and turnstream does not talk to Discord directly.
describe("splitMessage: upstream invariant tests", () => {
  it("no_split_under_limit", () => {
    expect(splitMessage("hello\nworld", 100)).toEqual(["hello\nworld"]);
  });

  it("plain_text_split_respects_limit", () => {
    const chunks = splitMessage("aaaa\nbbbb\ncccc\ndddd", 10);
    expectWithinLimit(chunks, 10);
    expect(chunks.length).toBeGreaterThan(1);
  });

  it("fenced_split_preserves_language_tag", () => {
    const chunks = splitMessage(`${F}rust\n${"x".repeat(1990)}\nanother line here\n${F}`, 2000);
    expectWithinLimit(chunks, 2000);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.startsWith(`${F}rust\n`)).toBe(true);
  });

  it("fenced_split_close_overhead_budgeted", () => {
    expectWithinLimit(splitMessage(`${F}\n${"a".repeat(40)}\n${"b".repeat(40)}\n${F}`, 50), 50);
  });

  it("reopen_path_no_overflow", () => {
    expectWithinLimit(splitMessage(`${F}rust\n${"x".repeat(1990)}\nshort\n${F}`, 2000), 2000);
  });

  it("hard_split_fenced_respects_limit", () => {
    const chunks = splitMessage(fenced("x".repeat(100)), 20);
    expectWithinLimit(chunks, 20);
    expect(chunks.join("").replaceAll(/[^x]/g, "")).toHaveLength(100);
  });

  it("hard_split_plain_respects_limit", () => {
    expectWithinLimit(splitMessage(`before\n${"y".repeat(50)}\nafter`, 10), 10);
  });

  it("closing_fence_triggers_split", () => {
    expectWithinLimit(splitMessage(fenced("a".repeat(44)), 50), 50);
  });

  it("multi_fence_blocks", () => {
    expectWithinLimit(splitMessage(`text\n${F}python\ncode1\ncode2\n${F}\nmore text\n${F}js\ncode3\n${F}`, 25), 25);
  });

  it("fence_balance_across_chunks", () => {
    const chunks = splitMessage(fenced(Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n")), 30);
    expectWithinLimit(chunks, 30);
    for (const chunk of chunks) expect(fenceLines(chunk) % 2, chunk).toBe(0);
  });

  it("grapheme_clusters_never_split", () => {
    expect(charCount(FAMILY)).toBe(7);
    expect(graphemes(FAMILY)).toEqual([FAMILY]);
    const cycle = ["🎉", FAMILY, "🇹🇼", "❤️", "𠀀", "a", "你", "🙂"];
    const line = Array.from({ length: 48 }, (_, i) => cycle[i % cycle.length]).join("");
    // Every limit is at least the widest cluster (the family), so none may be split: the
    // chunks' clusters, flattened, are the line's clusters.
    for (const limit of [8, 13, 20]) {
      const chunks = splitMessage(line, limit);
      expectWithinLimit(chunks, limit);
      expect(chunks.flatMap(graphemes), `limit ${limit}`).toEqual(graphemes(line));
    }
  });

  it("plain_hard_split_prefers_whitespace", () => {
    const line = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo";
    const chunks = splitMessage(line, 20);
    expectWithinLimit(chunks, 20);
    expect(chunks.length).toBeGreaterThan(1);
    const words = (text: string) => text.split(/\s+/).filter((word) => word !== "");
    expect(words(chunks.map((chunk) => chunk.trim()).join(" "))).toEqual(words(line));
  });

  it("cjk_hard_split_breaks_between_characters", () => {
    const line = "好".repeat(50);
    const chunks = splitMessage(line, 10);
    expectWithinLimit(chunks, 10);
    expect(chunks.join("")).toBe(line);
  });

  it("fenced_hard_split_grapheme_safe", () => {
    const content = "🎉❤️你".repeat(20);
    const chunks = splitMessage(fenced(content), 20);
    expectWithinLimit(chunks, 20);
    const bodies = chunks.map((chunk) => chunk.split("\n").filter((line) => !line.startsWith(F)).join(""));
    expect(bodies.join("")).toBe(content);
    expect(bodies.flatMap(graphemes)).toEqual(graphemes(content));
  });

  it("oversized_grapheme_still_respects_limit", () => {
    for (const limit of [2, 3, 5]) {
      const chunks = splitMessage(FAMILY, limit);
      expectWithinLimit(chunks, limit);
      expect(chunks.join(""), `limit ${limit}`).toBe(FAMILY);
    }
  });
});

// A long line is cut once per chunk; a cut that segmented the whole rest of the line made a
// 400 KB reply take over a minute. The segmenter copies what it is given, so the text handed to
// it, summed over a split, is the work: it must stay a small multiple of the input.
describe("splitMessage: linear in the length of a line", () => {
  const MB = 2 ** 20;
  const plain = (line: string) => ({ text: line, content: line, read: (chunks: string[]) => chunks.join("") });
  // Every chunk of a split code block is the opener line, a piece of the body and the closer.
  const block = (body: string) => ({
    text: fenced(body, `${F}js`),
    content: body,
    read: (chunks: string[]) => chunks.map((chunk) => chunk.replace(/^```js\n/, "").replace(/\n```$/, "")).join(""),
  });
  const cases = [
    { name: "words", ...plain("abc ".repeat(MB / 4)) },
    { name: "no whitespace", ...plain("x".repeat(MB)) },
    { name: "emoji with skin tones", ...plain("👍🏽".repeat(MB / 4)) },
    { name: "a base with combining marks", ...plain(`e${"\u0301".repeat(MB)}`) },
    { name: "a code block", ...block("x".repeat(MB)) },
    { name: "a code block of one wide cluster", ...block(`e${"\u0301".repeat(MB)}`) },
  ];

  it.each(cases)("$name: 1 MB, every chunk within the limit, nothing lost", ({ text, content, read }) => {
    const segment = vi.spyOn(Intl.Segmenter.prototype, "segment");
    try {
      const chunks = splitMessage(text, 4096);
      expectWithinLimit(chunks, 4096);
      expect(read(chunks)).toBe(content);
      const segmented = segment.mock.calls.reduce((sum, [input]) => sum + input.length, 0);
      expect(segmented).toBeLessThanOrEqual(4 * text.length);
    } finally {
      segment.mockRestore();
    }
  });
});
