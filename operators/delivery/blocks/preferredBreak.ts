import type { BreakScan } from "./breakScan.js";

export type BreakPreference = "paragraph" | "newline" | "sentence";

/**
 * Where a block starting at `start` ends by `windowEnd`, at least `shortest` long: the last break
 * there, by preference — a paragraph (`\n\n`), a line end, a sentence end, then any whitespace —
 * or -1 when there is none (the caller cuts hard). A search of the scan's positions, never the text.
 */
export function lastPreferredBreak(scan: BreakScan, preference: BreakPreference, start: number, shortest: number, windowEnd: number): number {
  const first = Math.max(start + 1, shortest);
  if (preference === "paragraph") {
    const at = scan.paragraphs.last(first, windowEnd - 2); // both newlines inside the window
    if (at !== -1) return at;
  }
  if (preference !== "sentence") {
    const at = scan.newlines.last(first, windowEnd - 1);
    if (at !== -1) return at;
  }
  if (preference !== "newline") {
    const at = scan.sentences.last(Math.max(start + 1, shortest + 1), windowEnd); // the mark itself at ≥ minChars
    if (at !== -1) return at;
  }
  return scan.spaces.last(first, windowEnd - 1);
}

/** Flush of a reopened fence's rest from `start`: the first paragraph or line end after it, or the last sentence end; -1 when none. */
export function firstPreferredBreak(scan: BreakScan, preference: BreakPreference, start: number): number {
  const first = start + 1;
  const end = scan.length;
  if (preference === "paragraph") {
    const at = scan.paragraphs.first(first, end - 2);
    if (at !== -1) return at;
  }
  if (preference !== "sentence") {
    const at = scan.newlines.first(first, end - 1);
    if (at !== -1) return at;
  }
  if (preference !== "newline") {
    const at = scan.sentences.last(first, end);
    if (at !== -1) return at;
  }
  return -1;
}
