/** The schema OpenAB's agents write, and the default `[delivery] schema`. */
export const TURN_SCHEMA = "openab.turn.v1";

/**
 * Where the envelope sits in a turn's text, as UTF-16 offsets (`text.slice(start, end)`).
 * `complete: false` means the object was never closed: `end` is the text's length.
 */
export interface EnvelopeSpan {
  readonly start: number;
  readonly end: number;
  readonly complete: boolean;
}

/**
 * Finds the envelope as turnstream does: OpenAB's scan (`scanEnvelopeSpan`) wherever it cannot
 * leak, hardened where it can (`delivery-and-triage.md` §12 (h)). Upstream's span is kept when it
 * holds envelope markers and no marker is left outside it. Otherwise, when the text still holds a
 * marker, every `{` is tried as the start of an object (string state from that `{` on, so quotes in
 * the prose cannot hide the envelope); the last balanced object with a marker wins, else the
 * earliest unclosed one.
 *
 * One more difference, for prose: a closed object that holds no marker (a JSON Schema snippet with
 * a `"schema"` key, say) is not an envelope, so prose quoting it is delivered unchanged. Unclosed
 * objects keep upstream's key test, so a turn cut off right after `{"schema":` is still caught.
 *
 * Markers: the `"messages"` key, the `openab.turn.` schema family, and `schema` (the configured
 * `[delivery] schema`, which may name another family).
 */
export function findEnvelopeSpan(text: string, schema: string = TURN_SCHEMA): EnvelopeSpan | undefined {
  const markers = envelopeMarkers(schema);
  const upstream = scanEnvelopeSpan(text);
  const kept =
    upstream !== undefined && (!upstream.complete || hasMarker(text.slice(upstream.start, upstream.end), markers))
      ? upstream
      : undefined;
  if (kept !== undefined && !hasMarker(text.slice(0, kept.start) + text.slice(kept.end), markers)) return kept;
  if (!hasMarker(text, markers)) return kept;
  return rescanEnvelopeSpan(text, markers) ?? kept;
}

/**
 * OpenAB's `find_envelope_span`, exactly (`delivery-and-triage.md` §4): one left-to-right scan in
 * which quotes toggle string state even in prose; a trailing unclosed object that looks like an
 * envelope wins, else the last balanced top-level object if it looks like one. Scanning UTF-16
 * units cuts where upstream's byte scan cuts: every delimiter is ASCII, never part of another
 * character, so multibyte text is never split.
 */
export function scanEnvelopeSpan(text: string): EnvelopeSpan | undefined {
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

  if (depth > 0 && openAt !== undefined && looksLikeEnvelope(text.slice(openAt))) {
    return { start: openAt, end: text.length, complete: false };
  }
  if (lastBalanced !== undefined && looksLikeEnvelope(text.slice(lastBalanced.start, lastBalanced.end))) {
    return { ...lastBalanced, complete: true };
  }
  return undefined;
}

/** Upstream's `looks_like_envelope`: key-based, so a turn cut off before the schema value still counts. */
function looksLikeEnvelope(fragment: string): boolean {
  return fragment.includes('"schema"') || fragment.includes('"messages"');
}

/** Text holding one of these is, or contains, an envelope (or a piece of one). */
export function envelopeMarkers(schema: string = TURN_SCHEMA): readonly string[] {
  return ['"messages"', "openab.turn.", schema];
}

export function hasMarker(text: string, markers: readonly string[]): boolean {
  return markers.some((marker) => text.includes(marker));
}

/** §12 (h)'s second scan: every `{` starts a candidate with fresh string state. */
function rescanEnvelopeSpan(text: string, markers: readonly string[]): EnvelopeSpan | undefined {
  const ends = new ObjectEnds(text);
  const held = new MarkerSpans(text, markers);
  let lastBalanced: EnvelopeSpan | undefined;
  let unclosed: EnvelopeSpan | undefined;
  // A candidate holds a marker only if it starts before the last one.
  const lastMarker = Math.max(...markers.map((marker) => text.lastIndexOf(marker)));
  let start = text.indexOf("{");
  while (start !== -1 && start <= lastMarker && !ends.exhausted) {
    const end = ends.of(start);
    if (end === undefined) {
      if (unclosed === undefined && held.within(start, text.length)) {
        unclosed = { start, end: text.length, complete: false };
      }
    } else if (held.within(start, end)) {
      lastBalanced = { start, end, complete: true };
      // Objects nested in it cannot be the envelope around it.
      start = text.indexOf("{", end);
      continue;
    }
    start = text.indexOf("{", start + 1);
  }
  return lastBalanced ?? unclosed;
}

/**
 * Whether `text.slice(start, end)` holds a marker, from where the markers occur. Searching each
 * candidate instead made nested objects quadratic (each nested `{` is a candidate spanning most
 * of the one around it). Candidates are asked in increasing `start`, so each marker keeps a cursor.
 */
class MarkerSpans {
  readonly #markers: readonly { readonly length: number; readonly at: readonly number[]; next: number }[];

  constructor(text: string, markers: readonly string[]) {
    this.#markers = markers.map((marker) => ({ length: marker.length, at: occurrences(text, marker), next: 0 }));
  }

  /** `start` must not decrease from one call to the next. */
  within(start: number, end: number): boolean {
    return this.#markers.some((marker) => {
      while (marker.next < marker.at.length && (marker.at[marker.next] ?? Infinity) < start) marker.next++;
      const first = marker.at[marker.next];
      return first !== undefined && first + marker.length <= end;
    });
  }
}

/** Every offset where `marker` starts, overlapping ones included. */
function occurrences(text: string, marker: string): number[] {
  const at: number[] = [];
  if (marker === "") return Array.from({ length: text.length + 1 }, (_, offset) => offset);
  for (let offset = text.indexOf(marker); offset !== -1; offset = text.indexOf(marker, offset + 1)) at.push(offset);
  return at;
}

/**
 * Where each object closes, with string state fresh from its `{`. One scan settles every `{` it
 * meets outside a string (a fresh scan from there reads the rest the same way), so only a `{`
 * that a scan saw inside a string costs a scan of its own. Adversarial text can still make that
 * quadratic: past a budget the rescan stops, and the fallback's marker check keeps what is left
 * from ever being sent.
 */
class ObjectEnds {
  readonly #text: string;
  // Per offset of a `{`: 0 not settled yet, UNCLOSED, or the offset after its `}`. Typed arrays,
  // not a Map: a megabyte of braces is a million entries.
  readonly #settled: Int32Array;
  readonly #open: Int32Array;
  #budget: number;

  constructor(text: string) {
    this.#text = text;
    this.#settled = new Int32Array(text.length);
    this.#open = new Int32Array(text.length);
    this.#budget = 16 * text.length + 65_536;
  }

  get exhausted(): boolean {
    return this.#budget <= 0;
  }

  /** The offset after the closing `}`, or `undefined` if the object never closes. */
  of(start: number): number | undefined {
    if (this.#settled[start] === 0) this.#scanFrom(start);
    const end = this.#settled[start] ?? UNCLOSED;
    return end === UNCLOSED ? undefined : end;
  }

  #scanFrom(start: number): void {
    const text = this.#text;
    const settled = this.#settled;
    const open = this.#open;
    let depth = 0;
    let inString = false;
    let escaped = false;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
      } else if (c === QUOTE) {
        inString = true;
      } else if (c === OPEN_BRACE) {
        open[depth++] = i;
      } else if (c === CLOSE_BRACE && depth > 0) {
        settled[open[--depth] ?? 0] = i + 1;
        if (depth === 0) {
          this.#budget -= i + 1 - start;
          return;
        }
      }
    }
    this.#budget -= text.length - start;
    for (let level = 0; level < depth; level++) settled[open[level] ?? 0] = UNCLOSED;
  }
}

const UNCLOSED = -1;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
