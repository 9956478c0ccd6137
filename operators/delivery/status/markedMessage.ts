import { charCount } from "../text/graphemes.js";
import { preview } from "./streamingEdits.js";

/**
 * A message that carries a marker above its text (a recovered re-run's "♻️ Recovered reply"):
 * the marker, a blank line, the text. Whoever edits such a message writes the marker again, or
 * the edit erases it.
 */
export function markedText(marker: string, text: string): string {
  return `${marker}\n\n${text}`;
}

/**
 * A streaming preview under `marker`, within `limit` characters: the marker, then `text` as
 * `preview` shows it in the room the marker leaves (its tail, after `…`, when it is long). Linear.
 */
export function markedPreview(marker: string, text: string, limit: number): string {
  return markedText(marker, preview(text, limit - charCount(marker) - 2));
}

/**
 * A reply's messages when its first carries `marker`: the marker on the first chunk when both fit
 * in `limit` characters, else the marker alone before every chunk (nothing of the reply is cut).
 */
export function markedChunks(marker: string, chunks: readonly string[], limit: number): string[] {
  const [first, ...rest] = chunks;
  if (first === undefined) return [marker];
  const text = markedText(marker, first);
  return charCount(text) <= limit ? [text, ...rest] : [marker, ...chunks];
}
