import { envelopeMarkers, findEnvelopeSpan, hasMarker, TURN_SCHEMA, type EnvelopeSpan } from "./findEnvelopeSpan.js";
import { rustTrim } from "./rustWhitespace.js";

/**
 * OpenAB's `strip_envelope` (`delivery-and-triage.md` §5): the text around the envelope, trimmed;
 * a truncated envelope runs to the end of the text. Without an envelope: the text, trimmed. The
 * span comes from turnstream's hardened `findEnvelopeSpan`.
 */
export function stripEnvelope(text: string, schema: string = TURN_SCHEMA): string {
  const span = findEnvelopeSpan(text, schema);
  return rustTrim(span === undefined ? text : text.slice(0, span.start) + text.slice(span.end));
}

/**
 * What `fallback_text` may send of a body that did not parse: `stripEnvelope`, hardened so that no
 * envelope reaches a user (`delivery-and-triage.md` §12 (f), (h)). A body without an envelope comes
 * back trimmed, as upstream sends it. Beyond upstream:
 * - the code fence that wrapped the envelope goes with it, so no empty code block is sent;
 * - while envelope markers remain (a second envelope, or one hidden behind an unrelated object),
 *   the next envelope is stripped too;
 * - text that still holds a marker after that is dropped whole: "" (the caller sends
 *   `parse_error_text`).
 */
export function proseAroundEnvelope(text: string, schema: string = TURN_SCHEMA): string {
  const markers = envelopeMarkers(schema);
  let rest = text;
  let span = findEnvelopeSpan(rest, schema);
  // A bound on the work for a body of many envelopes; whatever is left then fails the check below.
  for (let cuts = 0; span !== undefined && cuts < MAX_CUTS; cuts++) {
    rest = cutSpan(rest, span);
    span = hasMarker(rest, markers) ? findEnvelopeSpan(rest, schema) : undefined;
  }
  const prose = rustTrim(rest);
  return hasMarker(prose, markers) ? "" : prose;
}

const MAX_CUTS = 8;

// A fence line right before the span, and a closing fence line right after it.
const FENCE_BEFORE = /(^|\n)[ \t]*`{3,}[^`\n]*\n\s*$/;
const CLOSER_AFTER = /^\s*`{3,}[ \t]*(?=\r?\n|$)/;
const FENCE_LINE = /^[ \t]*`{3,}/gm;

/** The text without the span, and without the fence around it when the fence only held the span. */
function cutSpan(text: string, span: EnvelopeSpan): string {
  let before = text.slice(0, span.start);
  let after = text.slice(span.end);
  // The fence line before the span opens a block only if an odd number of fence lines precede it.
  const inBlock = (before.match(FENCE_LINE)?.length ?? 0) % 2 === 1;
  const opener = inBlock ? FENCE_BEFORE.exec(before) : null;
  const closer = CLOSER_AFTER.exec(after);
  // A truncated envelope leaves its opener dangling at the end: that fence held only the envelope.
  if (opener !== null && (closer !== null || rustTrim(after) === "")) {
    before = before.slice(0, opener.index + (opener[1] ?? "").length);
    after = closer === null ? after : after.slice(closer[0].length);
  }
  return before + after;
}
