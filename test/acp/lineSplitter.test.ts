import { describe, expect, it } from "vitest";
import { LineSplitter, type SplitResult } from "../../src/acp/lineSplitter.js";

const line = (text: string): SplitResult => ({ kind: "line", line: text });

/** Feeds every chunk, then collects what `end()` reports. */
function split(maxLineBytes: number, chunks: readonly Buffer[]): { lines: SplitResult[]; last: SplitResult | undefined } {
  const splitter = new LineSplitter(maxLineBytes);
  const lines = chunks.flatMap((chunk) => splitter.push(chunk));
  return { lines, last: splitter.end() };
}

/** The bytes of `text` cut at the given byte offsets. */
function cutAt(text: string, ...offsets: number[]): Buffer[] {
  const bytes = Buffer.from(text, "utf8");
  const bounds = [0, ...offsets, bytes.length];
  return bounds.slice(1).map((end, i) => bytes.subarray(bounds[i], end));
}

describe("LineSplitter", () => {
  it("returns each newline-terminated line of one chunk, in order", () => {
    expect(split(1024, [Buffer.from("one\ntwo\nthree\n")])).toEqual({ lines: [line("one"), line("two"), line("three")], last: undefined });
  });

  it("joins a line split across chunks and returns nothing until its newline arrives", () => {
    const splitter = new LineSplitter(1024);
    expect(splitter.push(Buffer.from('{"json'))).toEqual([]);
    expect(splitter.push(Buffer.from('rpc":"2.0"'))).toEqual([]);
    expect(splitter.push(Buffer.from('}\n{"next'))).toEqual([line('{"jsonrpc":"2.0"}')]);
    expect(splitter.push(Buffer.from('":1}\n'))).toEqual([line('{"next":1}')]);
    expect(splitter.end()).toBeUndefined();
  });

  it("treats a newline arriving alone as the end of the buffered line", () => {
    const splitter = new LineSplitter(1024);
    expect(splitter.push(Buffer.from("abc"))).toEqual([]);
    expect(splitter.push(Buffer.from("\n"))).toEqual([line("abc")]);
  });

  it("decodes a 3-byte character (好) cut after each of its bytes", () => {
    const text = "你好\n";
    const bytes = Buffer.from(text);
    expect(bytes.length).toBe(7);
    // "好" occupies bytes 3..5; cut inside it at 4 and at 5.
    expect(split(1024, cutAt(text, 4)).lines).toEqual([line("你好")]);
    expect(split(1024, cutAt(text, 5)).lines).toEqual([line("你好")]);
    expect(split(1024, cutAt(text, 4, 5)).lines).toEqual([line("你好")]);
  });

  it("decodes a 4-byte emoji delivered one byte per chunk", () => {
    const text = "ok 🎉 done\n";
    const chunks = [...Buffer.from(text)].map((byte) => Buffer.from([byte]));
    const { lines, last } = split(1024, chunks);
    expect(lines).toEqual([line("ok 🎉 done")]);
    expect(last).toBeUndefined();
    expect(JSON.stringify(lines)).not.toContain("\\ufffd");
  });

  it("decodes an emoji cut in the middle of its sequence at every possible point", () => {
    const text = '{"text":"😀"}\n';
    const start = Buffer.from('{"text":"').length;
    for (let cut = start + 1; cut < start + 4; cut++) {
      expect(split(1024, cutAt(text, cut)).lines, `cut at byte ${cut}`).toEqual([line('{"text":"😀"}')]);
    }
  });

  it("strips the \\r of a CRLF ending, also when \\r and \\n arrive in different chunks", () => {
    expect(split(1024, [Buffer.from("a\r\nb\r\n")]).lines).toEqual([line("a"), line("b")]);
    expect(split(1024, [Buffer.from("a\r"), Buffer.from("\nb\r\n")]).lines).toEqual([line("a"), line("b")]);
  });

  it("strips only the one \\r before the newline, not a \\r inside the line", () => {
    expect(split(1024, [Buffer.from("a\rb\r\r\n")]).lines).toEqual([line("a\rb\r")]);
  });

  it("returns empty lines as empty strings (and a bare CRLF as one)", () => {
    expect(split(1024, [Buffer.from("\n\nx\n\r\n")]).lines).toEqual([line(""), line(""), line("x"), line("")]);
  });

  it("end() returns the unterminated remainder, CR stripped", () => {
    expect(split(1024, [Buffer.from("first\nlast words")])).toEqual({ lines: [line("first")], last: line("last words") });
    expect(split(1024, [Buffer.from("tail\r")]).last).toEqual(line("tail"));
  });

  it("end() returns undefined when the stream ended on a newline or carried nothing", () => {
    expect(split(1024, [Buffer.from("done\n")]).last).toBeUndefined();
    expect(split(1024, []).last).toBeUndefined();
  });

  it("end() flushes an incomplete UTF-8 sequence as a replacement character rather than losing the line", () => {
    const { last } = split(1024, [Buffer.from("hi "), Buffer.from("好").subarray(0, 2)]);
    expect(last).toEqual(line("hi \ufffd"));
  });

  it("accepts a line of exactly maxLineBytes bytes (counted in UTF-8 bytes, not characters)", () => {
    // 5 × "好" = 15 bytes plus "x" = 16 bytes.
    expect(split(16, [Buffer.from("好好好好好x\n")]).lines).toEqual([line("好好好好好x")]);
    // One more byte is too long, although it is only 7 characters.
    expect(split(16, [Buffer.from("好好好好好xy\n")]).lines).toEqual([{ kind: "oversized", bytes: 17 }]);
  });

  it("reports an over-long line once, with its size, and returns the next line intact", () => {
    const long = "x".repeat(40);
    expect(split(16, [Buffer.from(`${long}\nshort\n`)])).toEqual({
      lines: [{ kind: "oversized", bytes: 40 }, line("short")],
      last: undefined,
    });
  });

  it("reports an over-long line spanning several chunks once, with its total size", () => {
    const splitter = new LineSplitter(16);
    const results: SplitResult[] = [];
    results.push(...splitter.push(Buffer.from("ok\n0123456789")));
    results.push(...splitter.push(Buffer.from("0123456789")));
    results.push(...splitter.push(Buffer.from("0123456789")));
    results.push(...splitter.push(Buffer.from("01\nafter\n")));
    expect(results).toEqual([line("ok"), { kind: "oversized", bytes: 32 }, line("after")]);
    expect(splitter.end()).toBeUndefined();
  });

  it("reports consecutive over-long lines separately", () => {
    expect(split(4, [Buffer.from("aaaaaa\nbbbbbbb\ncc\n")]).lines).toEqual([
      { kind: "oversized", bytes: 6 },
      { kind: "oversized", bytes: 7 },
      line("cc"),
    ]);
  });

  it("end() reports an over-long unterminated remainder as oversized, then nothing", () => {
    const splitter = new LineSplitter(8);
    expect(splitter.push(Buffer.from("y".repeat(5)))).toEqual([]);
    expect(splitter.push(Buffer.from("y".repeat(5)))).toEqual([]);
    expect(splitter.end()).toEqual({ kind: "oversized", bytes: 10 });
  });

  it("does not keep the discarded bytes: a huge line leaves the splitter usable with a small buffer", () => {
    const splitter = new LineSplitter(16);
    const chunk = Buffer.alloc(64 * 1024, "z");
    for (let i = 0; i < 64; i++) expect(splitter.push(chunk)).toEqual([]);
    expect(splitter.push(Buffer.from("\nnext\n"))).toEqual([{ kind: "oversized", bytes: 64 * 64 * 1024 }, line("next")]);
  });
});
