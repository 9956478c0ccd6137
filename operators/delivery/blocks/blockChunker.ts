import { BreakScan, codePointWidth, CR, isSpace, LF, type Fence } from "./breakScan.js";
import { closeLine, reopenLine } from "./fenceLines.js";
import { clusterEnd } from "./graphemeBoundary.js";
import { firstPreferredBreak, lastPreferredBreak, type BreakPreference } from "./preferredBreak.js";

/**
 * Where a cut that must fall inside a code fence falls: `line`, at the end of the last code line
 * that fits (OpenClaw's Markdown chunker, `peers.md` §5.1), so a line copied from one message is
 * whole; `hard`, at maxChars mid-line (OpenClaw's block chunker, §6.1, whose vector pins it).
 */
export type FenceSplit = "line" | "hard";

export interface BlockChunkerSettings {
  /** Emit nothing until the buffer has at least this many (unless forced). */
  readonly minChars: number;
  /** No block longer than this (the caller clamps it to the platform limit). */
  readonly maxChars: number;
  readonly breakPreference: BreakPreference;
  /** Default `line`. */
  readonly fenceSplit?: FenceSplit;
}

/**
 * Incremental block chunker: feed text as the agent writes it, take blocks as they become ready.
 * OpenClaw's block chunker (`peers.md` §6.1), lengths in UTF-16 units as there. A block ends at the
 * last break before `maxChars` that leaves it `minChars` long, by preference: a paragraph (`\n\n`),
 * a line end, a sentence end (`[.!?]` then whitespace), any whitespace, else a hard cut on a
 * grapheme boundary. No break falls inside a code fence: a cut there closes the fence and the
 * next block reopens it. That cut ends the block with the last whole code line that fits, shorter
 * than `minChars` if need be (a fence that starts after the block's text moves on whole instead);
 * only a code line too long for any block is cut mid-line (`fenceSplit`: `hard` cuts at maxChars,
 * as OpenClaw's block chunker). The separator after a break is dropped, and newlines starting a block.
 *
 * Unlike OpenClaw, which cuts at whatever break the buffer holds when a delta lands, a block is cut
 * only once the text past its window has arrived: the same text gives the same blocks however it
 * was split into deltas. Each character is scanned once, into break positions and fences (see
 * `BreakScan`); a cut searches those, never the text.
 *
 * Two limits no cut can honour: with `maxChars` 1 a surrogate pair is a block of 2; and where not
 * one cluster fits beside a reopened fence's opener and closer, the fence is cut unclosed (as OpenClaw).
 *
 * @throws {RangeError} when `maxChars` is not an integer ≥ 1 or `minChars` not one in [1, maxChars].
 */
export class BlockChunker {
  readonly #minChars: number;
  readonly #maxChars: number;
  readonly #preference: BreakPreference;
  readonly #fenceSplit: FenceSplit;
  #scan = new BreakScan();
  /** The text not yet emitted starts at `#start`; `#text` holds it from offset `#base` on. */
  #text = "";
  #base = 0;
  #start = 0;
  /** The fence the next block continues, and the line (its opener's, and "\n") reopening it. */
  #resumed: Fence | undefined;
  #reopen = "";
  /** Whether an empty continuation of `#resumed` has been looked for. */
  #resumeSettled = false;
  /** Newlines at the block's start are dropped, those still to come too. */
  #dropNewlines = true;

  constructor(settings: BlockChunkerSettings) {
    const { minChars, maxChars, breakPreference, fenceSplit = "line" } = settings;
    if (!Number.isInteger(maxChars) || maxChars < 1) {
      throw new RangeError(`BlockChunker maxChars must be an integer >= 1, got ${maxChars}`);
    }
    if (!Number.isInteger(minChars) || minChars < 1 || minChars > maxChars) {
      throw new RangeError(`BlockChunker minChars must be an integer in [1, maxChars], got ${minChars}`);
    }
    this.#minChars = minChars;
    this.#maxChars = maxChars;
    this.#preference = breakPreference;
    this.#fenceSplit = fenceSplit;
  }

  /** Appends a delta; returns the blocks now ready, in order (often none). */
  push(delta: string): string[] {
    if (delta === "") return [];
    this.#text += delta;
    this.#scan.feed(delta);
    const blocks: string[] = [];
    for (;;) {
      this.#settleStart();
      const windowEnd = this.#windowEnd();
      // Two units past the window's end (a whole code point there), every break, fence and
      // cluster boundary inside it is known: the cut is final.
      if (this.#scan.settled <= windowEnd + 1) break;
      this.#cut(this.#lastBreak(windowEnd, this.#minChars), blocks);
    }
    this.#compact();
    return blocks;
  }

  /**
   * Forced flush (text end / message end / turn end): every remaining block, the rest split at
   * maxChars as needed; [] when nothing is buffered. Leaves the chunker empty and reusable.
   */
  flush(): string[] {
    this.#scan.finish();
    const blocks: string[] = [];
    for (;;) {
      this.#settleStart();
      const end = this.#scan.length;
      if (this.#start >= end) break;
      const windowEnd = this.#windowEnd();
      if (end > windowEnd) {
        // Forced: `minChars` no longer holds text back.
        this.#cut(this.#lastBreak(windowEnd, 1), blocks);
        continue;
      }
      // A reopened fence's rest goes alone up to the first break after it (OpenClaw's forced pick).
      const at = this.#reopen === "" ? -1 : firstPreferredBreak(this.#scan, this.#preference, this.#start);
      if (at === -1) {
        this.#emit(this.#reopen + this.#slice(this.#start, end), blocks);
        break;
      }
      this.#cut({ kind: "break", at }, blocks);
    }
    this.#reset();
    return blocks;
  }

  /** UTF-16 units buffered and not yet emitted. */
  get buffered(): number {
    return this.#scan.length - this.#start;
  }

  /** Where the next block would reach `maxChars`, counting the line reopening a fence. */
  #windowEnd(): number {
    return this.#start + this.#maxChars - this.#reopen.length;
  }

  /** The block ending at the last break in the window at which it has `minChars`. */
  #lastBreak(windowEnd: number, minChars: number): Cut {
    const at = lastPreferredBreak(this.#scan, this.#preference, this.#start, this.#start + minChars - this.#reopen.length, windowEnd);
    return at === -1 ? this.#hardCut(windowEnd) : { kind: "break", at };
  }

  /** No break in the window: cut at its end, closing a fence the cut falls in. */
  #hardCut(windowEnd: number): Cut {
    const end = this.#clusterEnd(windowEnd);
    const at = end > this.#start ? end : this.#start + codePointWidth(this.#text, this.#start - this.#base);
    const fence = this.#scan.fenceAround(at);
    const reopen = fence === undefined ? undefined : reopenLine(fence, this.#maxChars);
    if (fence === undefined || reopen === undefined) return { kind: "break", at };
    // Room for the content, a "\n" and the closing marker.
    const split = this.#clusterEnd(windowEnd - closeLine(fence).length - 1);
    if (split <= this.#start) return { kind: "break", at };
    // Split in its opener line, the fence would be empty here and its info string code: it moves on whole.
    if (split <= fence.bodyStart && fence.start - 1 > this.#start) return { kind: "break", at: fence.start - 1 };
    // Split in its closer line, the marker would be cut in two: the fence ends here instead.
    if (fence.closeStart > this.#start && fence.closeStart <= split) return { kind: "fenceEnd", fence };
    if (this.#fenceSplit === "line") {
      const line = this.#lastCodeLine(fence, windowEnd - closeLine(fence).length - 1);
      // No whole code line here: a fence that starts after the block's text moves on whole.
      if ((line === undefined || line.blank) && fence.start - 1 > this.#start) return { kind: "break", at: fence.start - 1 };
      // Only blank code before the line end: no block of it, the next one resumes after it.
      if (line?.blank === true) return { kind: "skip", at: line.resume, fence, reopen };
      if (line !== undefined) return { kind: "split", at: line.end, resume: line.resume, fence, reopen };
    }
    return { kind: "split", at: split, fence, reopen };
  }

  /**
   * The last line end in the fence's body at or before `to`: where the block's text ends (before
   * a "\r\n" or "\n") and the next block's resumes, and whether the body before it is blank.
   */
  #lastCodeLine(fence: Fence, to: number): { readonly end: number; readonly resume: number; readonly blank: boolean } | undefined {
    const from = Math.max(this.#start, fence.bodyStart);
    const lf = this.#scan.codeLines.last(from + 1, to);
    if (lf === -1) return undefined;
    const end = this.#charAt(lf - 1) === CR ? lf - 1 : lf;
    // Linear: the text read is the block's.
    return { end, resume: lf + 1, blank: !/\S/.test(this.#slice(from, end)) };
  }

  #cut(cut: Cut, blocks: string[]): void {
    if (cut.kind === "skip") {
      this.#moveStart(cut.at, cut.fence, `${cut.reopen}\n`);
      return;
    }
    const head = this.#reopen + this.#slice(this.#start, cut.kind === "fenceEnd" ? cut.fence.closeStart : cut.at);
    if (cut.kind === "break") {
      this.#emit(head, blocks);
      const after = cut.at < this.#scan.length && isSpace(this.#charAt(cut.at)) ? cut.at + 1 : cut.at;
      this.#moveStart(after, undefined, "");
      return;
    }
    this.#emit(`${head}${head.endsWith("\n") ? "" : "\n"}${closeLine(cut.fence)}`, blocks);
    if (cut.kind === "fenceEnd") this.#moveStart(cut.fence.end, undefined, "");
    else this.#moveStart(cut.resume ?? cut.at, cut.fence, `${cut.reopen}\n`);
  }

  #emit(block: string, blocks: string[]): void {
    if (/\S/.test(block)) blocks.push(block);
  }

  #moveStart(at: number, resumed: Fence | undefined, reopen: string): void {
    this.#start = at;
    this.#resumed = resumed;
    this.#reopen = reopen;
    this.#resumeSettled = false;
    this.#dropNewlines = resumed === undefined;
    this.#scan.forget(at);
  }

  /** Drops newlines starting the block, and a reopened fence with nothing left in it but whitespace. */
  #settleStart(): void {
    if (this.#dropNewlines) {
      let at = this.#start;
      while (at < this.#scan.length && this.#charAt(at) === LF) at++;
      this.#dropNewlines = at === this.#scan.length;
      if (at > this.#start) {
        this.#start = at;
        this.#scan.forget(at);
      }
    }
    const fence = this.#resumed;
    // A closer inside the window is settled before any cut of this block: the answer is final.
    if (fence === undefined || this.#resumeSettled || fence.closeStart === -1 || fence.closeStart > this.#windowEnd()) return;
    this.#resumeSettled = true;
    if (/\S/.test(this.#slice(this.#start, fence.closeStart))) return;
    this.#moveStart(fence.end, undefined, "");
    this.#settleStart();
  }

  /** `clusterEnd` of the block, at offsets into the whole text (`#text` ends where the scan does). */
  #clusterEnd(to: number): number {
    return this.#base + clusterEnd(this.#text, this.#start - this.#base, to - this.#base);
  }

  #charAt(at: number): number {
    return this.#text.charCodeAt(at - this.#base);
  }

  #slice(from: number, to: number): string {
    return this.#text.slice(from - this.#base, to - this.#base);
  }

  /** Forgets emitted text; only once the start moved, so growing the buffer by deltas never copies it. */
  #compact(): void {
    if (this.#start === this.#base) return;
    this.#text = this.#text.slice(this.#start - this.#base);
    this.#base = this.#start;
  }

  #reset(): void {
    this.#scan = new BreakScan();
    this.#text = "";
    this.#base = 0;
    this.#moveStart(0, undefined, "");
  }
}

/**
 * Where a block ends: at a break (the whitespace char after it dropped); inside a fence, closed
 * there and reopened in the next block (which resumes at `resume`, after the line end a split at a
 * code line's end drops; else at `at`); just before the fence's own closer, which the block's
 * closing marker replaces; or nowhere (`skip`): the fence's blank lines up to `at` are dropped.
 */
type Cut =
  | { readonly kind: "break"; readonly at: number }
  | { readonly kind: "split"; readonly at: number; readonly resume?: number; readonly fence: Fence; readonly reopen: string }
  | { readonly kind: "skip"; readonly at: number; readonly fence: Fence; readonly reopen: string }
  | { readonly kind: "fenceEnd"; readonly fence: Fence };
