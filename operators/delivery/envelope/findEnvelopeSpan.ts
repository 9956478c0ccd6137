import { EnvelopeMarkerIndex, TURN_SCHEMA } from "./envelopeMarkers.js";
import { ObjectEnds } from "./envelopeObjectEnds.js";
import { truncatedOpening } from "./envelopeOpening.js";
import type { EnvelopeSpan } from "./envelopeSpan.js";

export { envelopeMarkers, TURN_SCHEMA } from "./envelopeMarkers.js";
export type { EnvelopeSpan } from "./envelopeSpan.js";

/**
 * Finds the envelope as turnstream does: OpenAB's scan wherever it cannot leak, hardened where it
 * can (`delivery-and-triage.md` §12 (h)). Upstream's span is kept when it holds envelope markers
 * and no marker is left outside it. Otherwise, when the text still holds a marker, every `{` is
 * tried as the start of an object (string state from that `{` on, so quotes in the prose cannot
 * hide the envelope); the earliest object with a marker that never closes wins (as upstream's
 * truncated tail does), else the last closed one with a marker.
 *
 * Keys and markers are judged by what they decode to (`EnvelopeMarkerIndex`): `"\u0073chema"` is
 * the `schema` key. Text that spells them plainly gets upstream's spans exactly.
 *
 * One more difference, for prose: a closed object that holds no marker (a JSON Schema snippet with
 * a `"schema"` key, say) is not an envelope, so prose quoting it is delivered unchanged. Unclosed
 * objects keep upstream's key test, so a turn cut off right after `{"schema":` is still caught.
 */
export function findEnvelopeSpan(text: string, schema: string = TURN_SCHEMA): EnvelopeSpan | undefined {
  return findEnvelopeSpanIn(text, new EnvelopeMarkerIndex(text, schema));
}

/** `findEnvelopeSpan` with the text's markers already indexed. */
export function findEnvelopeSpanIn(text: string, markers: EnvelopeMarkerIndex): EnvelopeSpan | undefined {
  const upstream = pickSpan(scanObjects(text), text.length, (start, end) => markers.keyedWithin(start, end));
  const kept = upstream !== undefined && (!upstream.complete || markers.markedWithin(upstream.start, upstream.end)) ? upstream : undefined;
  if (kept !== undefined && !markers.markedOutside(kept.start, kept.end)) return kept;
  if (!markers.any) return kept ?? truncatedOpening(text);
  return rescanEnvelopeSpan(text, markers) ?? kept ?? truncatedOpening(text);
}

/**
 * OpenAB's `find_envelope_span`, exactly (`delivery-and-triage.md` §4): one left-to-right scan in
 * which quotes toggle string state even in prose; a trailing unclosed object that looks like an
 * envelope wins, else the last balanced top-level object if it looks like one. Scanning UTF-16
 * units cuts where upstream's byte scan cuts: every delimiter is ASCII, never part of another
 * character, so multibyte text is never split. Judges keys by their spelling, as upstream does.
 */
export function scanEnvelopeSpan(text: string): EnvelopeSpan | undefined {
  return pickSpan(scanObjects(text), text.length, (start, end) => looksLikeEnvelope(text.slice(start, end)));
}

/** What upstream's scan saw: the top-level object left open at the end, and the last closed one. */
interface TopLevelObjects {
  readonly openAt?: number;
  readonly lastBalanced?: { readonly start: number; readonly end: number };
}

function scanObjects(text: string): TopLevelObjects {
  let depth = 0;
  let openAt: number | undefined;
  let lastBalanced: { start: number; end: number } | undefined;
  let inString = false;
  let escaped = false;

  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === BACKSLASH) escaped = true;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE) {
      if (depth === 0) openAt = i;
      depth += 1;
    } else if (c === CLOSE_BRACE && depth > 0) {
      depth -= 1;
      if (depth === 0 && openAt !== undefined) {
        lastBalanced = { start: openAt, end: i + 1 };
        openAt = undefined;
      }
    }
  }
  return { ...(depth > 0 && openAt !== undefined ? { openAt } : {}), ...(lastBalanced === undefined ? {} : { lastBalanced }) };
}

/** Upstream's choice: a trailing unclosed object that looks like an envelope, else the last closed one if it does. */
function pickSpan(
  { openAt, lastBalanced }: TopLevelObjects,
  length: number,
  looksLike: (start: number, end: number) => boolean,
): EnvelopeSpan | undefined {
  if (openAt !== undefined && looksLike(openAt, length)) return { start: openAt, end: length, complete: false };
  if (lastBalanced !== undefined && looksLike(lastBalanced.start, lastBalanced.end)) return { ...lastBalanced, complete: true };
  return undefined;
}

/** Upstream's `looks_like_envelope`: key-based, so a turn cut off before the schema value still counts. */
function looksLikeEnvelope(fragment: string): boolean {
  return fragment.includes('"schema"') || fragment.includes('"messages"');
}

/** §12 (h)'s second scan: every `{` starts a candidate with fresh string state. */
function rescanEnvelopeSpan(text: string, held: EnvelopeMarkerIndex): EnvelopeSpan | undefined {
  const ends = new ObjectEnds(text);
  let lastBalanced: EnvelopeSpan | undefined;
  // A candidate holds a marker only if it starts before the last one.
  const lastMarker = held.lastStart;
  let start = text.indexOf("{");
  while (start !== -1 && start <= lastMarker && !ends.exhausted) {
    const end = ends.of(start);
    if (end === undefined) {
      // As upstream's truncated tail: it wins over every closed object, before it or inside it.
      if (held.markedWithin(start, text.length)) return { start, end: text.length, complete: false };
    } else if (held.markedWithin(start, end)) {
      lastBalanced = { start, end, complete: true };
      // Objects nested in it cannot be the envelope around it.
      start = text.indexOf("{", end);
      continue;
    }
    start = text.indexOf("{", start + 1);
  }
  return lastBalanced;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
