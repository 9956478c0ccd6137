/** Abort phrases (OpenClaw's list, English core) that end a batch and run on their own. */
const abortPhrases = new Set([
  "stop",
  "esc",
  "abort",
  "exit",
  "interrupt",
  "halt",
  "stopp",
  "pare",
  "please stop",
  "stop please",
  "do not do that",
  "stop run",
]);

/** The first letter of every abort phrase. */
const phraseStarts = new Set([...abortPhrases].map((phrase) => phrase.charAt(0)));

/**
 * Whether a message is a control command that must never wait in a debounce batch: a slash command
 * at the start (`/reset`, `/cancel`, `/status`…), or an abort phrase such as "stop" — compared
 * lower-cased with trailing punctuation removed.
 */
export function isControlCommand(text: string): boolean {
  const trimmed = text.trim();
  if (/^\/[A-Za-z]\w*(?:@\S+)?(?:\s|$)/.test(trimmed)) return true;
  // Every abort phrase starts with one of these letters: most messages are settled here, without
  // the lower-cased, rewritten copy below (this runs for every event, on the worker and the edge).
  if (!phraseStarts.has(trimmed.charAt(0).toLowerCase())) return false;
  const phrase = trimmed.toLowerCase().replace(/[.!?…,;:'")\]}]+$/u, "").replace(/\s+/g, " ");
  return abortPhrases.has(phrase);
}
