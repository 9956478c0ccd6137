import { escapeAt } from "./envelopeDecodedText.js";
import { ObjectEnds } from "./envelopeObjectEnds.js";
import type { EnvelopeSpan } from "./envelopeSpan.js";

/** The envelope's keys (`delivery-and-triage.md` §2): a cut-off object starting with one is taken for an envelope. */
const ENVELOPE_KEYS = ["schema", "messages", "next"];

/**
 * An envelope cut off before any marker (`{`, `{"sch`, `{"next":{"ty`, however spelled): the
 * earliest object that never closes and whose first key is, or so far could become, an envelope
 * key. Upstream's key test needs the whole `"schema"`; without this, such a tail was sent as
 * prose, `{` and all. An object that closes is judged by its markers, not here.
 */
export function truncatedOpening(text: string): EnvelopeSpan | undefined {
  const ends = new ObjectEnds(text);
  for (let start = text.indexOf("{"); start !== -1 && !ends.exhausted; start = text.indexOf("{", start + 1)) {
    if (opensLikeEnvelope(text, start) && ends.of(start) === undefined) return { start, end: text.length, complete: false };
  }
  return undefined;
}

/**
 * Whether the object at `start` (a `{`) begins as an envelope does: nothing but whitespace up to
 * the end of the text, or a first key that decodes to an envelope key or, cut off by the end of
 * the text, to the start of one. Reads at most the whitespace and one short key.
 */
export function opensLikeEnvelope(text: string, start: number): boolean {
  let at = start + 1;
  while (at < text.length && JSON_WHITESPACE.has(text.charCodeAt(at))) at++;
  if (at === text.length) return true;
  if (text.charCodeAt(at) !== QUOTE) return false;
  let key = "";
  for (at += 1; at < text.length; ) {
    const c = text.charCodeAt(at);
    if (c === QUOTE) return ENVELOPE_KEYS.includes(key);
    if (c === BACKSLASH) {
      // An escape the end of the text cut could still spell anything.
      if (at + 6 > text.length && /^\\(u[0-9a-fA-F]{0,3})?$/.test(text.slice(at))) return true;
      const { unit, width } = escapeAt(text, at);
      key += String.fromCharCode(unit);
      at += width;
    } else {
      key += text.charAt(at);
      at += 1;
    }
    if (!ENVELOPE_KEYS.some((name) => name.startsWith(key))) return false;
  }
  return true;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
// JSON's whitespace (RFC 8259 §2): space, tab, line feed, carriage return.
const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
