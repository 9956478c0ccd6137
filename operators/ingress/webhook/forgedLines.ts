/**
 * Untrusted text set into a prompt must not pass for the prompt's own structure: a line of it that
 * reads as one of the broker's markers — a `<sender_context>` block opening or closing (which
 * agents split a batch at), group history's two markers, a webhook prompt's header — is quoted
 * (`> `), as group history quotes its lines (`historyPrompt`). A marker is recognised by its letters
 * and digits only, compatibility forms folded and case ignored, so `**[CURRENT MESSAGE – respond
 * to this]**` or `< SENDER_CONTEXT >` is caught as well.
 */

/** The markers a line of untrusted text may not begin as. */
export const PROMPT_MARKERS: readonly string[] = [
  "<sender_context>",
  // operators/ingress/prompt/groupHistory.ts (OpenClaw's markers).
  "[Chat messages since your last reply - for context]",
  "[Current message - respond to this]",
];

/**
 * `text` with each line that reads as one of `markers` quoted. `atLineStart`: whether the text's
 * first line starts a line where it is put (a value set mid-line cannot pass for a marker's line).
 * Expects `\n` as the only line break (what `untrustedText` leaves). Linear in `text`.
 */
export function quotedForgedLines(text: string, markers: readonly string[], atLineStart: boolean): string {
  const letters = markers.map(lettersOf);
  return text
    .split("\n")
    .map((line, i) => ((i > 0 || atLineStart) && readsAsMarker(line, letters) ? `> ${line}` : line))
    .join("\n");
}

function readsAsMarker(line: string, markers: readonly string[]): boolean {
  const letters = lettersOf(line);
  return markers.some((marker) => letters.startsWith(marker));
}

/** A text's letters and digits only, compatibility forms folded (NFKC) and lower-cased: what a marker is recognised by. */
function lettersOf(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}
