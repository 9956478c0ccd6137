// The block chunker's scanner: break positions and code fences found once, as the text arrives,
// so a cut searches positions instead of reading the text (see `BlockChunker`).

/** A fenced code block, at offsets into the whole text; `end` and `closeStart` are set when it closes. */
export interface Fence {
  readonly start: number;
  readonly indent: string;
  readonly marker: string;
  /** The opener line without its newline: what a block continuing the fence opens with. */
  readonly openLine: string;
  /** Where the first line after the opener starts. */
  readonly bodyStart: number;
  /** Where the closer line ends (its "\n", or the text's end); Infinity while open. */
  end: number;
  /** Where the closer line starts; -1 while open. */
  closeStart: number;
}

export const LF = 0x0a;
export const CR = 0x0d;

/** A fence line (OpenClaw's `fences.ts`): up to three spaces, three or more backticks or tildes, then anything. */
const FENCE_LINE = /^( {0,3})(`{3,}|~{3,})([^\r\u2028\u2029]*)\r?$/;
/** A line start that is already a fence line's. */
const FENCE_OPENED = /^ {0,3}(?:```|~~~)/;
/** A line start that may still become a fence line's. */
const FENCE_MAY_OPEN = /^ {0,3}(?:`{1,2}|~{1,2})?$/;

/** A line's kind, as far as the scan knows it: just begun, ordinary, or a fence line held until its end. */
type LineState = "start" | "plain" | "fence";

/**
 * Break positions and fences of the whole text, found once as it arrives (offsets into the whole
 * text). A line that may be a fence line is held until it ends, since only then is it known to open
 * or close a fence; the text before it is `settled`.
 */
export class BreakScan {
  /** The first "\n" of each "\n\n" outside code. */
  readonly paragraphs = new Positions();
  /** Each line end outside code (the "\r" of a "\r\n"). */
  readonly newlines = new Positions();
  /** Each whitespace char after `.`, `!` or `?` outside code. */
  readonly sentences = new Positions();
  /** Each whitespace char outside code (not the "\n" of a "\r\n": one cluster). */
  readonly spaces = new Positions();
  /** Each "\n" ending a line inside code: an opener's, a body line's (not a closer's, which ends the code). */
  readonly codeLines = new Positions();
  readonly #fences: Fence[] = [];
  #fencesHead = 0;
  #open: Fence | undefined;
  #length = 0;
  #lineStart = 0;
  #state: LineState = "start";
  /** The current line while it is held. */
  #line = "";
  #prev = -1;
  /** Whether the last "\n" was outside code. */
  #newlineSafe = false;

  get length(): number {
    return this.#length;
  }

  /** Text before this is scanned for good. */
  get settled(): number {
    return this.#state === "plain" ? this.#length : this.#lineStart;
  }

  feed(delta: string): void {
    const base = this.#length;
    this.#length += delta.length;
    let i = 0;
    while (i < delta.length) {
      if (this.#state === "fence") {
        const end = delta.indexOf("\n", i);
        this.#line += delta.slice(i, end === -1 ? delta.length : end);
        if (end === -1) return;
        this.#endHeldLine(true);
        i = end + 1;
      } else if (this.#state === "start") {
        if (delta.charCodeAt(i) !== LF) {
          this.#line += delta.charAt(i);
          i++;
          if (FENCE_OPENED.test(this.#line)) this.#state = "fence";
          if (this.#state === "fence" || FENCE_MAY_OPEN.test(this.#line)) continue;
        }
        this.#replay(this.#open === undefined ? Infinity : 0);
        this.#state = "plain";
      } else {
        i = this.#plain(delta, i, base);
      }
    }
  }

  /** The text has ended: a held line ends with it, and a final `.` ends a sentence. */
  finish(): void {
    if (this.#state !== "plain") this.#endHeldLine(false);
    this.#state = "plain";
    if (this.#open === undefined && isSentenceEnd(this.#prev)) this.sentences.add(this.#length);
  }

  /** The fence a cut at `at` falls inside (after its start, before its end). */
  fenceAround(at: number): Fence | undefined {
    let low = this.#fencesHead;
    let high = this.#fences.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.#fences[middle]?.start ?? Infinity) < at) low = middle + 1;
      else high = middle;
    }
    const fence = low > this.#fencesHead ? this.#fences[low - 1] : undefined;
    return fence !== undefined && at < fence.end ? fence : undefined;
  }

  /** Drops what lies before `at`: the text there is emitted. */
  forget(at: number): void {
    for (const positions of [this.paragraphs, this.newlines, this.sentences, this.spaces, this.codeLines]) positions.forget(at);
    while ((this.#fences[this.#fencesHead]?.end ?? Infinity) <= at) this.#fencesHead++;
  }

  /** Scans an ordinary line from `i`; returns where it stopped (after a "\n", or the delta's end). */
  #plain(delta: string, i: number, base: number): number {
    if (this.#open !== undefined) {
      // Inside code nothing is a break: only the line's end matters.
      const end = delta.indexOf("\n", i);
      if (end === -1) return delta.length;
      this.#newline(base + end, false);
      return end + 1;
    }
    for (; i < delta.length; i++) {
      const unit = delta.charCodeAt(i);
      if (unit === LF) {
        this.#newline(base + i, true);
        return i + 1;
      }
      this.#unit(unit, base + i, true);
    }
    return i;
  }

  /** The held line has ended (at a "\n" when `newline`): it opens a fence, closes one, or is text. */
  #endHeldLine(newline: boolean): void {
    const line = this.#line;
    const match = FENCE_LINE.exec(line);
    const open = this.#open;
    let after = open === undefined; // whether the line leaves the text outside code
    if (match === null) {
      this.#replay(open === undefined ? Infinity : 0);
    } else if (open === undefined) {
      // Only the opener's first char is outside its fence (a cut there keeps the fence whole).
      this.#replay(1);
      const [, indent = "", marker = "", info = ""] = match;
      const start = this.#lineStart;
      const openLine = indent + marker + info;
      const fence: Fence = { start, indent, marker, openLine, bodyStart: start + line.length + 1, end: Infinity, closeStart: -1 };
      this.#fences.push(fence);
      this.#open = fence;
      after = false;
    } else if (closes(open, match)) {
      this.#replay(0);
      open.end = this.#lineStart + line.length;
      open.closeStart = this.#lineStart;
      this.#open = undefined;
      after = true;
    } else {
      this.#replay(0);
    }
    if (newline) this.#newline(this.#lineStart + line.length, after);
  }

  /** Scans the held line's chars, the first `safeChars` of them outside code. */
  #replay(safeChars: number): void {
    const line = this.#line;
    for (let k = 0; k < line.length; k++) this.#unit(line.charCodeAt(k), this.#lineStart + k, k < safeChars);
    this.#line = "";
  }

  #unit(unit: number, at: number, safe: boolean): void {
    if (safe && isSpace(unit)) {
      this.spaces.add(at);
      if (isSentenceEnd(this.#prev)) this.sentences.add(at);
    }
    this.#prev = unit;
  }

  #newline(at: number, safe: boolean): void {
    if (safe) {
      this.newlines.add(this.#prev === CR ? at - 1 : at);
      if (this.#prev === LF && this.#newlineSafe) this.paragraphs.add(at - 1);
      if (this.#prev !== CR) this.spaces.add(at);
      if (isSentenceEnd(this.#prev)) this.sentences.add(at);
    } else {
      this.codeLines.add(at);
    }
    this.#newlineSafe = safe;
    this.#prev = LF;
    this.#lineStart = at + 1;
    this.#state = "start";
    this.#line = "";
  }
}

/** A closer: the opener's marker char, at least as many of them, then only spaces or tabs. */
function closes(open: Fence, match: RegExpExecArray): boolean {
  const [, , marker = "", info = ""] = match;
  return marker[0] === open.marker[0] && marker.length >= open.marker.length && /^[ \t]*$/.test(info);
}

/** Ascending offsets of one kind of break; those before the block's start are forgotten. */
class Positions {
  #at: number[] = [];
  #head = 0;

  add(at: number): void {
    this.#at.push(at);
  }

  forget(before: number): void {
    while ((this.#at[this.#head] ?? Infinity) < before) this.#head++;
    // Drop forgotten ones in bulk, so the array stays as long as what is buffered.
    if (this.#head > 1024 && this.#head * 2 > this.#at.length) {
      this.#at = this.#at.slice(this.#head);
      this.#head = 0;
    }
  }

  /** The last offset in [from, to], or -1. */
  last(from: number, to: number): number {
    const after = this.#firstAbove(to);
    const at = after > this.#head ? (this.#at[after - 1] ?? -1) : -1;
    return at >= from ? at : -1;
  }

  /** The first offset in [from, to], or -1. */
  first(from: number, to: number): number {
    const at = this.#at[this.#firstAbove(from - 1)] ?? -1;
    return at !== -1 && at <= to ? at : -1;
  }

  /** Index of the first offset above `value`. */
  #firstAbove(value: number): number {
    let low = this.#head;
    let high = this.#at.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.#at[middle] ?? Infinity) <= value) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

// JavaScript's `\s`, as OpenClaw tests breaks with it.
const SPACE = /\s/;

export function isSpace(unit: number): boolean {
  if (unit < 0x80) return unit === 0x20 || (unit >= 0x09 && unit <= 0x0d);
  return SPACE.test(String.fromCharCode(unit));
}

function isSentenceEnd(unit: number): boolean {
  return unit === 0x2e || unit === 0x21 || unit === 0x3f;
}

export function codePointWidth(text: string, at: number): number {
  return isHighSurrogate(text.charCodeAt(at)) && isLowSurrogate(text.charCodeAt(at + 1)) ? 2 : 1;
}

export function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

export function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
