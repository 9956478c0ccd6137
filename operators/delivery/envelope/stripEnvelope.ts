import { EnvelopeMarkerIndex, TURN_SCHEMA } from "./envelopeMarkers.js";
import { envelopeDebrisEnd } from "./envelopeDebris.js";
import { findEnvelopeSpan, findEnvelopeSpanIn, type EnvelopeSpan } from "./findEnvelopeSpan.js";
import { rustTrim } from "../text/rustWhitespace.js";

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
 * - keys and markers are judged decoded (`EnvelopeMarkerIndex`), however the JSON spells them;
 * - the code fence (``` or ~~~) that wrapped the envelope goes with it, so no empty code block is sent;
 * - the envelope's JSON right after a closed span goes with it (`envelopeDebrisEnd`);
 * - while envelope markers remain (a second envelope, or one hidden behind an unrelated object), or
 *   an object cut off at the end opens like an envelope, the next one is stripped too;
 * - text that still holds a marker after that, or, once something was cut, a key of the
 *   envelope's shape (`"text":`), is dropped whole: "" (the caller sends `parse_error_text`).
 */
export function proseAroundEnvelope(text: string, schema: string = TURN_SCHEMA): string {
  let rest = text;
  let markers = new EnvelopeMarkerIndex(rest, schema);
  let span = findEnvelopeSpanIn(rest, markers);
  // A bound on the work for a body of many envelopes; whatever is left then fails the check below.
  for (let cuts = 0; span !== undefined && cuts < MAX_CUTS; cuts++) {
    rest = cutSpan(rest, span);
    // Each cut text is decoded once, for every question about it.
    markers = new EnvelopeMarkerIndex(rest, schema);
    // Asked even without markers: a cut-off object after the envelope (`{`) is one too.
    span = findEnvelopeSpanIn(rest, markers);
  }
  // Trimming takes whitespace only, never part of an escape: the markers of `rest` are the prose's.
  // Once an envelope was cut, its keys left behind mean a piece of it escaped the cut.
  const cut = rest.length !== text.length;
  return markers.any || (cut && markers.fieldKeys) ? "" : rustTrim(rest);
}

const MAX_CUTS = 8;

// A fence line (``` or ~~~, CommonMark's two kinds) right before the span, and a closing fence
// line of the same kind right after it. `(?!~)` keeps a long run of tildes from backtracking.
const FENCE_BEFORE = /(^|\n)[ \t]*(?:(`{3,})[^`\n]*|~{3,}(?!~)[^\n]*)\n\s*$/;
const FENCE_LINES = { "`": /^[ \t]*`{3,}/gm, "~": /^[ \t]*~{3,}/gm };
const CLOSERS = { "`": /^\s*`{3,}[ \t]*(?=\r?\n|$)/, "~": /^\s*~{3,}[ \t]*(?=\r?\n|$)/ };

/**
 * The text without the span, and without the fence around it when the fence only held the span.
 * A closed span takes the envelope's debris after it too (`envelopeDebrisEnd`).
 */
function cutSpan(text: string, span: EnvelopeSpan): string {
  let before = text.slice(0, span.start);
  let after = text.slice(span.complete ? envelopeDebrisEnd(text, span.end) : span.end);
  const opener = FENCE_BEFORE.exec(before);
  const kind = opener?.[2] === undefined ? "~" : "`";
  // The fence line before the span opens a block only if an odd number of fence lines precede it.
  const inBlock = opener !== null && (before.match(FENCE_LINES[kind])?.length ?? 0) % 2 === 1;
  const closer = CLOSERS[kind].exec(after);
  // A truncated envelope leaves its opener dangling at the end: that fence held only the envelope.
  if (opener !== null && inBlock && (closer !== null || rustTrim(after) === "")) {
    before = before.slice(0, opener.index + (opener[1] ?? "").length);
    after = closer === null ? after : after.slice(closer[0].length);
  }
  return before + after;
}
