import { charCount, codePointCut, graphemeCut } from "./graphemes.js";

/** A line starting with this opens or closes a code block (upstream toggles on any such line). */
const FENCE = "```";
/** Appended to close a code block the split falls inside. */
const CLOSE = "\n```";
const CLOSE_CHARS = 4;

/** Opener line, "\n", bare closer: what the quirk in `openab-protocol.md` §14.3 emits. */
const EMPTY_FENCED_BLOCK = /^```[^\n]*\n```$/;

/**
 * Splits `text` into chunks of at most `limit` chars (Unicode scalar values) for a platform's
 * message limit: OpenAB's `format::split_message` (`openab-protocol.md` §14.2). Splits fall on
 * line breaks; a split inside a code block closes it and reopens it with the full opener line
 * (language tag kept); an over-long line is hard-split on grapheme cluster boundaries, preferring
 * whitespace outside code blocks. Text within the limit comes back unchanged as one chunk.
 *
 * Two deliberate differences from upstream, both where upstream emits broken Markdown:
 * - a split chunk that is exactly an empty code block (opener line + "\n" + three backticks) is
 *   dropped, so a user never receives an empty code block;
 * - an opening fence line is never cut in two: it moves to the next chunk instead.
 *
 * @throws {RangeError} when `limit` is not an integer ≥ 1.
 */
export function splitMessage(text: string, limit: number): string[] {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`splitMessage limit must be an integer >= 1, got ${limit}`);
  }
  if (charCount(text) <= limit) return [text];

  const draft = new Draft();
  let opener: string | null = null; // the full opener line while inside a code block

  for (const line of text.split("\n")) {
    const lineChars = charCount(line);
    const isFence = line.startsWith(FENCE);
    // A line that leaves the chunk inside a block must leave room for the CLOSE it may need.
    // Upstream reserves only for content lines, so an opening fence line arriving within four
    // chars of the limit was hard-split into a broken fence; reserving for it keeps it whole.
    const endsInsideBlock = (opener !== null) !== isFence;
    const reserve = endsInsideBlock ? CLOSE_CHARS : 0;

    if (!draft.isEmpty && draft.chars + 1 + lineChars + reserve > limit) {
      if (opener === null) {
        draft.push();
      } else {
        if (!isFence) draft.append(CLOSE);
        draft.push();
        draft.append(opener);
        if (isFence) {
          // The closing fence itself overflowed (only a closer longer than three backticks can):
          // upstream pushes the chunk unclosed and closes the block in the reopened one.
          opener = null;
          draft.append(`\n${line}`);
          continue;
        }
        if (draft.chars + 1 + lineChars + CLOSE_CHARS <= limit) {
          draft.append(`\n${line}`);
          continue;
        }
        // Too long even for a fresh reopened chunk: the hard split below takes it.
      }
    }

    if (!draft.isEmpty) draft.append("\n");
    if (isFence) opener = opener === null ? line : null;

    const room = Math.max(0, limit - draft.chars - (opener === null ? 0 : CLOSE_CHARS));
    if (lineChars <= room) draft.append(line);
    else if (opener !== null && fencedCapacity(opener, limit) > 0) hardSplitFenced(draft, line, opener, limit);
    else hardSplitPlain(draft, line, limit);
  }

  if (!draft.isEmpty) {
    if (opener !== null) draft.append(CLOSE);
    draft.push();
  }
  return draft.chunks;
}

/** The finished chunks and the one being filled, whose length is kept in chars. */
class Draft {
  readonly chunks: string[] = [];
  #current = "";
  #chars = 0;

  get isEmpty(): boolean {
    return this.#current === "";
  }

  get chars(): number {
    return this.#chars;
  }

  append(piece: string): void {
    this.#current += piece;
    this.#chars += charCount(piece);
  }

  /** Finishes the current chunk; an empty code block is not worth a message. */
  push(): void {
    if (!EMPTY_FENCED_BLOCK.test(this.#current)) this.chunks.push(this.#current);
    this.#current = "";
    this.#chars = 0;
  }
}

/** Content chars a reopened chunk holds: the limit minus opener line, "\n" and CLOSE. */
function fencedCapacity(opener: string, limit: number): number {
  return limit - (charCount(opener) + 1 + CLOSE_CHARS);
}

/**
 * A line too long for a code block: fill the current chunk, then one reopened chunk per
 * `capacity` chars. No word wrap, since code must not be reflowed at spaces.
 */
function hardSplitFenced(draft: Draft, line: string, opener: string, limit: number): void {
  const capacity = fencedCapacity(opener, limit);
  const firstRoom = draft.isEmpty ? capacity : Math.max(0, limit - (draft.chars + CLOSE_CHARS));
  let rest = line;
  let cut = graphemeCut(rest, firstRoom, false);
  draft.append(rest.slice(0, cut));
  rest = rest.slice(cut);
  while (rest !== "") {
    draft.append(CLOSE);
    draft.push();
    draft.append(`${opener}\n`);
    cut = graphemeCut(rest, capacity, false);
    // Only a single cluster wider than the capacity fails to fit: cut it by scalar values.
    if (cut === 0) cut = codePointCut(rest, capacity);
    draft.append(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
}

/** A line too long outside a code block (or for a block too narrow to wrap): prefer whitespace. */
function hardSplitPlain(draft: Draft, line: string, limit: number): void {
  let rest = line;
  while (rest !== "") {
    const room = Math.max(0, limit - draft.chars);
    let cut = graphemeCut(rest, room, true);
    if (cut === 0) {
      if (!draft.isEmpty) {
        // Nothing more fits in this chunk: retry in an empty one.
        draft.push();
        continue;
      }
      cut = codePointCut(rest, room);
    }
    draft.append(rest.slice(0, cut));
    rest = rest.slice(cut);
    if (rest !== "") draft.push();
  }
}
