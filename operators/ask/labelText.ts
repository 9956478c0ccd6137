import type { Redact } from "../delivery/text/redactSecrets.js";
import { untrustedText } from "../ingress/untrustedText.js";

/** How much of an agent's text is read for one line of a question: far more than any line shows. */
const READ_CHARS = 2_000;

/**
 * One clean line of an agent's text for a question (an option's label, a header): control
 * characters and escapes removed, secrets redacted before the cut, then at most `maxChars` code
 * points, a longer one ending in `…` — a button shows no `(+N chars)` count. Linear in the text.
 */
export function labelText(raw: string, maxChars: number, redact?: Redact): string {
  const clean = untrustedText(raw, { maxChars: READ_CHARS });
  const line = (redact === undefined ? clean : untrustedText(redact(clean), { maxChars: READ_CHARS })).trim();
  const points = Array.from(line);
  return points.length <= maxChars ? line : `${points.slice(0, maxChars - 1).join("").trimEnd()}…`;
}
