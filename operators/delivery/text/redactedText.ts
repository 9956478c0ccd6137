import { UNTRUSTED_TEXT_MIN_CHARS, untrustedText, type UntrustedTextOptions } from "../../ingress/untrustedText.js";
import type { Redact } from "./redactSecrets.js";

/**
 * Agent text bound for a chat (a tool title, a JSON-RPC error message) as `untrustedText` makes
 * it, with its secrets redacted in between: the whole text is cleaned first (an escape sequence
 * inside a token cannot hide it from `redact`), then redacted, and only then cut to `maxChars`
 * (default 500), so the cut never leaves part of a secret. Linear in the text.
 */
export function redactedText(raw: string, redact: Redact, options: UntrustedTextOptions = {}): string {
  const whole = untrustedText(raw, { multiline: options.multiline ?? false, maxChars: Math.max(raw.length, UNTRUSTED_TEXT_MIN_CHARS) });
  return untrustedText(redact(whole), options);
}
