import { redactSecrets, type Redact } from "../../operators/delivery/text/redactSecrets.js";
import { redactUrlsIn } from "../config/index.js";
import { maskCutHeads } from "./cutSecretHeads.js";

const MASK = "***";
/** Shorter values are not scrubbed: masking every "abc" would garble lines and protect nothing real. */
export const MIN_SCRUBBED_CHARS = 4;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The spellings a value takes in a JSON log line: as is, JSON-escaped, URL-encoded. */
function spellings(secret: string): string[] {
  return [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)];
}

/**
 * A function that masks, in one serialized log line, the credentials of every URL and every
 * occurrence of the given secret values, and what a cut left of either (a secret's head, a URL's
 * authority, just before `…(+N chars)`). The sources never log secrets; this is the last line of
 * defence for text they pass on (a library's error message, an agent's stderr).
 */
export function secretScrubber(secrets: readonly string[]): (line: string) => string {
  const forms = [...new Set(secrets.filter((secret) => secret.length >= MIN_SCRUBBED_CHARS).flatMap(spellings))];
  // Longest first, so a secret that contains another is masked whole.
  forms.sort((a, b) => b.length - a.length);
  const known = forms.length === 0 ? undefined : new RegExp(forms.map(escapeRegExp).join("|"), "g");
  return (line) => {
    const masked = known === undefined ? line : line.replace(known, MASK);
    return maskCutHeads(redactUrlsIn(masked), forms, MASK, MIN_SCRUBBED_CHARS);
  };
}

/**
 * The masking of agent text bound for a chat (tool titles and arguments, error messages): the
 * logger's scrubber (every secret the broker holds, URL credentials), then `redactSecrets`' token
 * shapes and command credentials. One mechanism with the logger's, not a copy of it.
 */
export function chatRedaction(secrets: readonly string[]): Redact {
  const scrub = secretScrubber(secrets);
  return (text) => redactSecrets(scrub(text));
}
