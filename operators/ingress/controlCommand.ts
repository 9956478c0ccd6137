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

/**
 * Whether a message is a control command that must never wait in a debounce batch: a slash command
 * at the start (`/reset`, `/cancel`, `/status`…), or an abort phrase such as "stop" — compared
 * lower-cased with trailing punctuation removed.
 */
export function isControlCommand(text: string): boolean {
  const trimmed = text.trim();
  if (/^\/[A-Za-z]\w*(?:@\S+)?(?:\s|$)/.test(trimmed)) return true;
  const phrase = trimmed.toLowerCase().replace(/[.!?…,;:'")\]}]+$/u, "").replace(/\s+/g, " ");
  return abortPhrases.has(phrase);
}
