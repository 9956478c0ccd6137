import { charCount, codePointCut, graphemeCut } from "../../../operators/delivery/text/graphemes.js";
import { escapeMarkdown } from "./escapeMarkdown.js";

/**
 * A plain text (`OutboundMessage.plainText`) as Discord messages of at most `limit` characters,
 * each escaped (`escapeMarkdown`): the text is split first, then each part escaped as the message
 * it becomes, so no split falls between a backslash and its mark and a part's first line escapes
 * as a line's start. Escaping lengthens a text, so a text the broker split to the limit may need
 * more parts here. Splits fall on line breaks, else (a line too long alone) after the last
 * whitespace that fits, else on a grapheme cluster boundary. No code block is closed and reopened
 * as `splitMessage` does: escaped backticks open none. A part that would show nothing (only
 * blanks, which Discord refuses) is not sent.
 *
 * @throws {RangeError} when `limit` is not an integer ≥ 2 (one escaped character takes two).
 */
export function plainParts(text: string, limit: number): string[] {
  checkLimit(limit, 2);
  const whole = escapeMarkdown(text);
  if (charCount(whole) <= limit) return [whole];
  const parts: string[] = [];
  let lines: string[] = [];
  let chars = 0;
  const add = (escaped: string) => {
    lines.push(escaped);
    chars += (lines.length > 1 ? 1 : 0) + charCount(escaped);
  };
  const flush = () => {
    const part = lines.join("\n");
    if (part.trim() !== "") parts.push(part);
    lines = [];
    chars = 0;
  };
  for (const line of text.split("\n")) {
    const escaped = escapeMarkdown(line);
    const length = charCount(escaped);
    if (lines.length > 0 && chars + 1 + length <= limit) {
      add(escaped);
      continue;
    }
    flush();
    let rest = line;
    let piece = escaped;
    while (charCount(piece) > limit) {
      const cut = fittingCut(rest, limit, true);
      const head = escapeMarkdown(rest.slice(0, cut));
      if (head.trim() !== "") parts.push(head);
      rest = rest.slice(cut);
      piece = escapeMarkdown(rest);
    }
    // The line's last piece may take the lines after it.
    add(piece);
  }
  flush();
  // Only blanks, and too many of them: what a short blank text gets, an empty message.
  return parts.length > 0 ? parts : [""];
}

/**
 * A plain text as one escaped message of at most `limit` characters, for a call that cannot be
 * split (an edit, a tap's notice): the whole text when it fits, else its start and `…`.
 *
 * @throws {RangeError} when `limit` is not an integer ≥ 3 (an escaped character and `…`).
 */
export function plainPart(text: string, limit: number): string {
  checkLimit(limit, 3);
  const whole = escapeMarkdown(text);
  if (charCount(whole) <= limit) return whole;
  return `${escapeMarkdown(text.slice(0, fittingCut(text, limit - 1, false)))}…`;
}

/**
 * The end (a UTF-16 index, at least one character) of the longest start of `text` whose escaped
 * form has at most `limit` characters (`limit` ≥ 2), on a grapheme cluster boundary (a cluster
 * wider than that is cut by scalar values), with `wordWrap` after its last whitespace. Each
 * character escapes to one or two, so ⌊limit/2⌋ characters always fit and `limit` is the most; an
 * escaped start only grows with the start, so a binary search between finds it.
 */
function fittingCut(text: string, limit: number, wordWrap: boolean): number {
  let fits = Math.floor(limit / 2);
  let over = limit + 1;
  while (over - fits > 1) {
    const middle = Math.floor((fits + over) / 2);
    if (charCount(escapeMarkdown(text.slice(0, codePointCut(text, middle)))) <= limit) fits = middle;
    else over = middle;
  }
  const cut = graphemeCut(text, fits, wordWrap);
  return cut === 0 ? codePointCut(text, fits) : cut;
}

function checkLimit(limit: number, least: number): void {
  if (!Number.isInteger(limit) || limit < least) throw new RangeError(`plain text limit must be an integer >= ${least}, got ${limit}`);
}
