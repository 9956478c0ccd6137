import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { placeFiles, type ReplyPart } from "../../../../operators/delivery/files/placeFiles.js";
import { isRustWhitespace, rustTrim, rustTrimEnd, rustTrimStart } from "../../../../operators/delivery/text/rustWhitespace.js";
import { expectLinear } from "../../../helpers/linearTime.js";

/** A transcript as the turn builds it: text chunks and files, each file `at` the buffer's length when it came. */
function turn(...items: (string | { readonly file: string })[]): { buffer: string; files: { at: number; file: string }[] } {
  let buffer = "";
  const files: { at: number; file: string }[] = [];
  for (const item of items) {
    if (typeof item === "string") buffer += item;
    else files.push({ at: buffer.length, file: item.file });
  }
  return { buffer, files };
}

const show = (parts: readonly ReplyPart<string>[]): string[] => parts.map((part) => (part.kind === "text" ? part.text : `[${part.file}]`));

describe("placeFiles", () => {
  it("is the trimmed reply alone when there are no files, nothing for an empty one", () => {
    expect(placeFiles("  hello \n", "hello", [])).toStrictEqual([{ kind: "text", text: "hello" }]);
    expect(placeFiles("", "", [])).toStrictEqual([]);
    expect(placeFiles(" \n\t", " \n\t", [])).toStrictEqual([]);
  });

  it("puts a file after the text that preceded it (issue 42: an image between two chunks)", () => {
    const { buffer, files } = turn("Here is the chart:\n", { file: "chart.png" }, "\nIt shows growth.");
    expect(placeFiles(rustTrim(buffer), buffer, files)).toStrictEqual([
      { kind: "text", text: "Here is the chart:" },
      { kind: "file", file: "chart.png" },
      { kind: "text", text: "It shows growth." },
    ]);
  });

  it("puts a file first when no text preceded it, last when none followed", () => {
    const first = turn({ file: "a" }, "then words");
    expect(show(placeFiles(first.buffer, first.buffer, first.files))).toStrictEqual(["[a]", "then words"]);
    const last = turn("words first", { file: "b" });
    expect(show(placeFiles(last.buffer, last.buffer, last.files))).toStrictEqual(["words first", "[b]"]);
  });

  it("keeps files at one place in their order, with no empty text between them", () => {
    const { buffer, files } = turn("one", { file: "a" }, { file: "b" }, "  \n ", { file: "c" }, "two");
    expect(show(placeFiles(buffer, buffer, files))).toStrictEqual(["one", "[a]", "[b]", "[c]", "two"]);
  });

  it("puts a file that came after trailing whitespace at the end of the trimmed reply", () => {
    const { buffer, files } = turn("done.\n\n", { file: "a" }, "  \n");
    expect(show(placeFiles("done.", buffer, files))).toStrictEqual(["done.", "[a]"]);
  });

  it("places from the end: a prefix the reply adds (reset notice, error line) stays before the agent's words", () => {
    const { buffer, files } = turn("Before ", { file: "a" }, "after.");
    expect(show(placeFiles(`⚠️ agent failed\n\n${buffer}`, buffer, files))).toStrictEqual(["⚠️ agent failed\n\nBefore", "[a]", "after."]);
  });

  it("drops the reply's leading directive header and still cuts at the right place", () => {
    const { buffer, files } = turn("[[reply_to_current]] Look:", { file: "a" }, " there.");
    expect(show(placeFiles("Look: there.", buffer, files))).toStrictEqual(["Look:", "[a]", "there."]);
  });

  it("puts a file in narration that was not delivered at the reply's start, never inside a tool summary", () => {
    // The agent sent an image, said "Ok", ran a tool and answered: the reply is the summary and the answer.
    const { buffer, files } = turn({ file: "a" }, "Ok", "Final answer.");
    const reply = "✅ `render`\nFinal answer.";
    expect(show(placeFiles(reply, buffer, files))).toStrictEqual(["[a]", "✅ `render`\nFinal answer."]);
  });

  it("puts a file that follows the undelivered narration at the start of the agent's words, after the summary", () => {
    const { buffer, files } = turn("Let me draw it.", { file: "a" }, "Here it is.");
    const reply = "✅ `draw`\nHere it is.";
    expect(show(placeFiles(reply, buffer, files))).toStrictEqual(["✅ `draw`", "[a]", "Here it is."]);
  });

  it("puts a file at the start when the words after it were silenced and only the error line is left", () => {
    const { buffer, files } = turn({ file: "a" }, "NO_REPLY");
    expect(show(placeFiles("⚠️ agent crashed", buffer, files))).toStrictEqual(["[a]", "⚠️ agent crashed"]);
  });

  it("never cuts a word when the reply's tail was changed (a trailing silent token stripped)", () => {
    const { buffer, files } = turn("Here it is", { file: "a" }, " NO_REPLY");
    const parts = show(placeFiles("Here it is", buffer, files));
    expect(parts.filter((part) => part !== "[a]")).toStrictEqual(["Here it is"]);
  });

  it("reads a reply with trailing whitespace as the trimmed one", () => {
    const { buffer, files } = turn("one two", { file: "a" }, " three");
    expect(show(placeFiles("one two three\n\n", buffer, files))).toStrictEqual(["one two", "[a]", "three"]);
  });

  it("trims with Rust's whitespace: U+0085 goes, U+FEFF stays", () => {
    const { buffer, files } = turn("\u0085a\u0085", { file: "f" }, "\ufeffb");
    expect(show(placeFiles(buffer, buffer, files))).toStrictEqual(["a", "[f]", "\ufeffb"]);
  });

  it("keeps the given order of files even if their offsets are not in order, and loses no text", () => {
    const parts = show(placeFiles("abcdef", "abcdef", [{ at: 4, file: "x" }, { at: 1, file: "y" }, { at: 99, file: "z" }, { at: -5, file: "w" }]));
    expect(parts.filter((part) => part.startsWith("["))).toStrictEqual(["[x]", "[y]", "[z]", "[w]"]);
    expect(parts.filter((part) => !part.startsWith("[")).join("")).toBe("abcdef");
  });

  it("is linear: a 1 MB reply with 5 000 files, and one with its files all before the delivered words", () => {
    const chunk = "word ".repeat(40);
    const withFiles = (count: number) => {
      const items: (string | { file: string })[] = [];
      for (let i = 0; i < count; i++) items.push(chunk, { file: `f${i}` });
      const { buffer, files } = turn(...items);
      return { reply: rustTrim(buffer), buffer, files };
    };
    const wordsFirst = (count: number) => ({ reply: `✅ x\n${"y".repeat(count)}`, buffer: `zzzzzzzzzz${"y".repeat(count)}`, files: [{ at: 5, file: "early" }] });
    const place = ({ reply, buffer, files }: { reply: string; buffer: string; files: { at: number; file: string }[] }) => placeFiles(reply, buffer, files);
    const parts = place(withFiles(5_000));
    expect(parts).toHaveLength(10_000);
    expect(parts.at(-1)).toStrictEqual({ kind: "file", file: "f4999" });
    expect(place(wordsFirst(1_000_000))[0]).toStrictEqual({ kind: "file", file: "early" });
    // Quadratic (a tail compared per file) grows as files × length: one reply of 5,000 files takes
    // ten times as long as ten of 500, where linear takes as long.
    expectLinear(withFiles, place, 5_000, "files");
    expectLinear(wordsFirst, place, 1_000_000, "words");
  });
});

describe("placeFiles: properties", () => {
  const runs = { numRuns: 200 };
  const text = fc.string({ unit: fc.constantFrom("a", "b", " ", "\n", "\u0085", "\ufeff", "😀"), maxLength: 12 });

  /** The text parts, found in `reply` in order with nothing but whitespace between and around them. */
  function expectTextInOrder(reply: string, parts: readonly ReplyPart<unknown>[]): void {
    const whitespaceOnly = (gap: string) => [...gap].every((c) => isRustWhitespace(c.charCodeAt(0)));
    let position = 0;
    for (const part of parts) {
      if (part.kind !== "text") continue;
      expect(part.text).not.toBe("");
      expect(part.text).toBe(rustTrim(part.text));
      const found = reply.indexOf(part.text, position);
      expect(found).toBeGreaterThanOrEqual(position);
      expect(whitespaceOnly(reply.slice(position, found)), JSON.stringify([reply.slice(position, found)])).toBe(true);
      position = found + part.text.length;
    }
    expect(whitespaceOnly(reply.slice(position))).toBe(true);
  }

  test.prop([text, text, fc.array(fc.integer({ min: -5, max: 40 }), { maxLength: 6 })], runs)(
    "any reply, buffer and offsets: every file once in the given order, every non-whitespace char of the reply in order",
    (reply, buffer, offsets) => {
      const files = offsets.map((at, i) => ({ at, file: i }));
      const parts = placeFiles(reply, buffer, files);
      expect(parts.filter((part) => part.kind === "file").map((part) => part.file)).toStrictEqual(files.map(({ file }) => file));
      expectTextInOrder(reply, parts);
    },
  );

  // A turn: text chunks with files between; the reply is a prefix and the buffer's text from `k`
  // (what was delivered: all of it, or the text after the last tool), its end trimmed.
  const turnCase = fc.record({
    items: fc.array(fc.oneof(text, fc.constant(null)), { maxLength: 8 }),
    keep: fc.double({ min: 0, max: 1, noNaN: true }),
    prefix: fc.constantFrom("", "✅ `tool`\n", "⚠️ boom:"),
  });

  test.prop([turnCase], runs)("a turn's files go after the text that preceded them, or first when that text was not delivered", ({ items, keep, prefix }) => {
    let buffer = "";
    const files: { at: number; file: number }[] = [];
    for (const item of items) {
      if (item === null) files.push({ at: buffer.length, file: files.length });
      else buffer += item;
    }
    const k = Math.floor(keep * buffer.length);
    const words = rustTrimEnd(buffer.slice(k));
    const reply = prefix + words;
    // The model: a file splits the words at its offset, or goes first when it came before them.
    const bufferEnd = rustTrimEnd(buffer).length;
    const places = files.map(({ at }) => {
      // What followed the file, from its first visible character.
      const fromEnd = at >= bufferEnd ? 0 : rustTrimStart(buffer.slice(at, bufferEnd)).length;
      if (fromEnd === 0) return rustTrimEnd(reply).length;
      return fromEnd <= words.length ? reply.length - fromEnd : 0;
    });
    const expected: ReplyPart<number>[] = [];
    const pushText = (piece: string) => {
      if (rustTrim(piece) !== "") expected.push({ kind: "text", text: rustTrim(piece) });
    };
    let from = 0;
    places.forEach((place, i) => {
      pushText(reply.slice(from, place));
      expected.push({ kind: "file", file: i });
      from = place;
    });
    pushText(reply.slice(from));
    expect(placeFiles(reply, buffer, files)).toStrictEqual(expected);
  });

  test.prop([turnCase.map(({ items }) => items)], runs)("the reply being the whole buffer: the text between two files is exactly what the agent wrote between them", (items) => {
    let buffer = "";
    const between: string[] = [""];
    const files: { at: number; file: number }[] = [];
    for (const item of items) {
      if (item === null) {
        files.push({ at: buffer.length, file: files.length });
        between.push("");
      } else {
        buffer += item;
        between[between.length - 1] += item;
      }
    }
    const expected: ReplyPart<number>[] = [];
    between.forEach((piece, i) => {
      if (rustTrim(piece) !== "") expected.push({ kind: "text", text: rustTrim(piece) });
      if (i < files.length) expected.push({ kind: "file", file: i });
    });
    expect(placeFiles(rustTrim(buffer), buffer, files)).toStrictEqual(expected);
  });
});
