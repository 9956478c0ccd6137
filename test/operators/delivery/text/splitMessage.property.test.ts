import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { charCount } from "../../../../operators/delivery/text/graphemes.js";
import { splitMessage } from "../../../../operators/delivery/text/splitMessage.js";

const F = "```";
const FAMILY = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}"; // one cluster, 7 chars
const TAGS = ["", "ts", "python", "rust"];
// Upstream's guarantees need a code block to have room for content once its opener line, "\n"
// and the closing "\n```" are paid for: below that, an opener wider than the limit overflows
// every reopened chunk. Text with fences therefore gets limit >= widest opener + 5 + widest
// generated cluster, so even an emoji family fits a reopened chunk whole.
const MIN_FENCED_LIMIT = charCount(`${F}python`) + 5 + charCount(FAMILY);

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const runs = { numRuns: 200 };

// ---- Generated text: Markdown-ish lines with code blocks, emoji, ZWJ, CJK and long runs ----

const word = fc.constantFrom(
  "alpha", "b", "charlie", "longerwordwithoutanybreaks", "你好世界", "好", "🎉", FAMILY,
  "🇹🇼", "❤️", "𠀀", "🙂", "e\u0301", "\u00a0", "\t",
);
const run = fc
  .tuple(fc.constantFrom("x", "好", "🎉", FAMILY, "ab "), fc.integer({ min: 1, max: 120 }))
  .map(([unit, times]) => unit.repeat(times));
// Backticks only ever appear in fence lines, so no content line can pass for a fence.
const anyGraphemes = fc.string({ unit: "grapheme", maxLength: 20 }).map((s) => s.replace(/[`\n]/g, "'"));
const token = fc.oneof(
  { arbitrary: word, weight: 6 },
  { arbitrary: run, weight: 1 },
  { arbitrary: anyGraphemes, weight: 1 },
);
const line = fc
  .tuple(fc.array(token, { maxLength: 12 }), fc.constantFrom(" ", "", "  "))
  .map(([tokens, separator]) => tokens.join(separator));
const prose = fc.array(line, { minLength: 1, maxLength: 5 });
// Blocks close with a bare fence, as Markdown does; only the last may be left open.
const codeBlock = fc
  .tuple(fc.constantFrom(...TAGS), fc.array(line, { maxLength: 6 }))
  .map(([tag, body]) => [`${F}${tag}`, ...body, F]);
const markdown = fc
  .tuple(fc.array(fc.oneof(prose, codeBlock), { minLength: 1, maxLength: 6 }), fc.boolean())
  .map(([segments, leaveLastOpen]) => {
    const lines = segments.flat();
    if (leaveLastOpen && lines.at(-1) === F) lines.pop();
    return lines.join("\n");
  });

const plainCase = fc.tuple(prose.map((lines) => lines.join("\n")), fc.integer({ min: 1, max: 200 }));
const markdownCase = fc
  .tuple(markdown, fc.integer({ min: 8, max: 200 }))
  .map(([text, limit]): [string, number] => [text, text.includes(F) ? Math.max(limit, MIN_FENCED_LIMIT) : limit]);
const splitCase = fc.oneof(plainCase, markdownCase);

// ---- Reading chunks back ----

/** A non-fence line, with the code block it sits in (its opener line and that line's index). */
interface ContentLine {
  readonly text: string;
  readonly opener: string | null;
  readonly block: number | null;
}

function contentLines(text: string): ContentLine[] {
  const lines: ContentLine[] = [];
  let opener: string | null = null;
  let block: number | null = null;
  for (const [index, line] of text.split("\n").entries()) {
    if (line.startsWith(F)) [opener, block] = opener === null ? [line, index] : [null, null];
    else lines.push({ text: line, opener, block });
  }
  return lines;
}

/** Where a hard split cut an input line: its index in `contentLines(input)`, and a UTF-16 offset. */
interface Cut {
  readonly line: number;
  readonly offset: number;
}

/** How much of the input the chunks have given back: `offset` UTF-16 units of content line `line`. */
interface Cursor {
  readonly line: number;
  readonly offset: number;
}

type ChunkReading = { readonly cursor: Cursor; readonly cuts: Cut[] } | { readonly mismatch: string };

/**
 * Reads the chunks' content lines back against the input's, and throws unless they give the input
 * back: each is the rest of the input line being read (a hard split continues a line in the next
 * chunk) or the next input line, in a code block with the same opener line as in the input, and a
 * chunk that continues a block starts with that opener. The only input lines that may go missing
 * are blank lines outside code blocks before a chunk's first line: upstream skips them there.
 */
function readBack(input: string, chunks: string[]): Cut[] {
  const source = contentLines(input);
  const cuts: Cut[] = [];
  let cursor: Cursor = { line: -1, offset: 0 }; // before the first line
  for (const chunk of chunks) {
    const reading = readChunk(source, cursor, chunk);
    if ("mismatch" in reading) throw new Error(`${reading.mismatch}, in chunk ${JSON.stringify(chunk)}`);
    cursor = reading.cursor;
    cuts.push(...reading.cuts);
  }
  expect(isLineDone(source, cursor), "the last line read is given back whole").toBe(true);
  for (const unread of source.slice(cursor.line + 1)) expect(unread).toEqual({ text: "", opener: null, block: null });
  return cuts;
}

/** Reads one chunk, trying each number of skipped blank lines when it starts a new line. */
function readChunk(source: ContentLine[], from: Cursor, chunk: string): ChunkReading {
  const reading = readPieces(source, from, chunk);
  if (!("mismatch" in reading) || !isLineDone(source, from)) return reading;
  for (let blank = from.line + 1; isSkippableBlank(source[blank]); blank++) {
    const retry = readPieces(source, { line: blank, offset: 0 }, chunk);
    if (!("mismatch" in retry)) return retry;
  }
  return reading;
}

function readPieces(source: ContentLine[], from: Cursor, chunk: string): ChunkReading {
  let { line, offset } = from;
  const cuts: Cut[] = [];
  for (const [k, piece] of contentLines(chunk).entries()) {
    const lastRead = source[line];
    if (isLineDone(source, { line, offset })) [line, offset] = [line + 1, 0];
    else if (k > 0) return { mismatch: `line ${line} is cut short inside a chunk` };
    else cuts.push({ line, offset });

    const expected = source[line];
    const shown = JSON.stringify(piece.text);
    if (expected === undefined) return { mismatch: `${shown} is beyond the input` };
    if (expected.text.slice(offset, offset + piece.text.length) !== piece.text) {
      return { mismatch: `${shown} is not next in input line ${JSON.stringify(expected.text)}` };
    }
    if (piece.opener !== expected.opener) return { mismatch: `${shown} is in block ${piece.opener}, not ${expected.opener}` };
    const continuesBlock = k === 0 && expected.block !== null && lastRead?.block === expected.block;
    if (continuesBlock && !chunk.startsWith(`${expected.opener}\n`)) {
      return { mismatch: `a chunk continuing a block does not reopen it with ${expected.opener}` };
    }
    offset += piece.text.length;
  }
  return { cursor: { line, offset }, cuts };
}

function isLineDone(source: ContentLine[], { line, offset }: Cursor): boolean {
  return line < 0 || offset === source[line]!.text.length;
}

function isSkippableBlank(line: ContentLine | undefined): boolean {
  return line?.text === "" && line.opener === null;
}

function fenceLineCount(chunk: string): number {
  return chunk.split("\n").filter((l) => l.startsWith(F)).length;
}

/** The grapheme cluster that `offset` falls strictly inside, if any. */
function clusterAround(text: string, offset: number): string | undefined {
  for (const { segment, index } of segmenter.segment(text)) {
    if (index >= offset) return undefined;
    if (offset < index + segment.length) return segment;
  }
  return undefined;
}

function nonFenceText(text: string): string {
  return text.split("\n").filter((l) => !l.startsWith(F)).join("");
}

// ---- Properties ----

describe("splitMessage properties", () => {
  test.prop([splitCase], runs)("text within the limit comes back unchanged, as one chunk", ([text, limit]) => {
    if (charCount(text) <= limit) expect(splitMessage(text, limit)).toEqual([text]);
  });

  test.prop([splitCase], runs)("every chunk has at most `limit` chars", ([text, limit]) => {
    for (const chunk of splitMessage(text, limit)) expect(charCount(chunk)).toBeLessThanOrEqual(limit);
  });

  // Text within the limit is returned as written, an unclosed block included: these are about splits.
  test.prop([splitCase], runs)("every chunk of a split has an even number of fence lines", ([text, limit]) => {
    if (charCount(text) <= limit) return;
    for (const chunk of splitMessage(text, limit)) expect(fenceLineCount(chunk) % 2, chunk).toBe(0);
  });

  test.prop([splitCase], runs)("no chunk of a split is empty or an empty code block", ([text, limit]) => {
    if (charCount(text) <= limit) return;
    for (const chunk of splitMessage(text, limit)) {
      expect(chunk).not.toBe("");
      expect(chunk).not.toMatch(/^```[^\n]*\n```$/);
    }
  });

  test.prop([splitCase], runs)("the chunks' content is the input's content, in order", ([text, limit]) => {
    const chunks = splitMessage(text, limit);
    // Coarse first: the same characters once fence lines and line breaks are set aside...
    expect(chunks.map(nonFenceText).join("")).toBe(nonFenceText(text));
    // ...then line by line, with code-block membership, language tags and reopen lines.
    readBack(text, chunks);
  });

  test.prop([splitCase], runs)("a code line is cut only when it is too long for a chunk of its own beside its opener and closer", ([text, limit]) => {
    const source = contentLines(text);
    for (const { line } of readBack(text, splitMessage(text, limit))) {
      const { text: cutLine, opener } = source[line]!;
      if (opener !== null) expect(charCount(cutLine), cutLine).toBeGreaterThan(limit - (charCount(opener) + 5));
    }
  });

  test.prop([splitCase], runs)("no grapheme cluster is cut unless it alone is wider than the room", ([text, limit]) => {
    const source = contentLines(text);
    for (const { line, offset } of readBack(text, splitMessage(text, limit))) {
      const { text: cutLine, opener } = source[line]!;
      const cluster = clusterAround(cutLine, offset);
      if (cluster === undefined) continue; // the cut is on a cluster boundary
      // A chunk inside a code block also holds its opener line, "\n" and the closing "\n```".
      const room = opener === null ? limit : limit - (charCount(opener) + 5);
      expect(charCount(cluster), `cut inside ${JSON.stringify(cluster)}`).toBeGreaterThan(room);
    }
  });
});
