import { isRustWhitespace, rustTrim, rustTrimEnd } from "../text/rustWhitespace.js";

/** One piece of a text reply with files: a run of text, or a file at its place. */
export type ReplyPart<F> = { readonly kind: "text"; readonly text: string } | { readonly kind: "file"; readonly file: F };

/**
 * Places a turn's files in its final reply text, each after the text that preceded it. `reply` is
 * the text as delivered, whose tail is the agent's words: `buffer` (the turn's streamed text, `at`
 * an offset in it) ends where `reply` ends, so a file `k` characters before the buffer's end goes
 * `k` characters before the reply's end (at its start when that text was not delivered: narration
 * before a tool, a silenced tail). Text runs are trimmed and empty ones dropped. Linear in the text.
 */
export function placeFiles<F>(reply: string, buffer: string, files: readonly { readonly at: number; readonly file: F }[]): ReplyPart<F>[] {
  const parts: ReplyPart<F>[] = [];
  const pushText = (text: string): void => {
    const trimmed = rustTrim(text);
    if (trimmed !== "") parts.push({ kind: "text", text: trimmed });
  };
  const bufferEnd = rustTrimEnd(buffer).length;
  const replyEnd = rustTrimEnd(reply).length;
  // A file is placed from the end only where the reply still has all the text that followed it;
  // otherwise that text was not delivered (or was changed), and an offset from the end would land
  // in whatever precedes the agent's words (a tool summary, an error line).
  const shared = sharedTail(reply, replyEnd, buffer, bufferEnd);
  let from = 0;
  let visible = 0;
  for (const { at, file } of files) {
    // The text that followed the file, from its first visible character: whitespace between a file
    // and the next words is nobody's, so a coincidence of blank lines never decides the place.
    // Files come in buffer order, so the scan only moves forward: linear over all files.
    visible = Math.max(visible, at);
    while (visible < bufferEnd && isRustWhitespace(buffer.charCodeAt(visible))) visible++;
    const fromEnd = Math.max(0, bufferEnd - visible);
    const cut = fromEnd > shared ? from : Math.max(from, replyEnd - fromEnd);
    pushText(reply.slice(from, cut));
    parts.push({ kind: "file", file });
    from = cut;
  }
  pushText(reply.slice(from));
  return parts;
}

/** How many characters `a` and `b` have in common at their ends (`aEnd`, `bEnd`). */
function sharedTail(a: string, aEnd: number, b: string, bEnd: number): number {
  let shared = 0;
  while (shared < aEnd && shared < bEnd && a.charCodeAt(aEnd - 1 - shared) === b.charCodeAt(bEnd - 1 - shared)) shared++;
  return shared;
}
