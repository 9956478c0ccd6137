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
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === "{") {
      if (depth === 0) openAt = i;
      depth += 1;
    } else if (c === "}" && depth > 0) {
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
  let lastBalanced: EnvelopeSpan | undefined;
  let unclosed: EnvelopeSpan | undefined;
  // A candidate holds a marker only if it starts before the last one.
  const lastMarker = Math.max(...markers.map((marker) => text.lastIndexOf(marker)));
  let start = text.indexOf("{");
  while (start !== -1 && start <= lastMarker && !ends.exhausted) {
    const end = ends.of(start);
    const candidate = text.slice(start, end ?? text.length);
    if (end === undefined) {
      if (unclosed === undefined && hasMarker(candidate, markers)) {
        unclosed = { start, end: text.length, complete: false };
      }
    } else if (hasMarker(candidate, markers)) {
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
 * Where each object closes, with string state fresh from its `{`. One scan settles every `{` it
 * meets outside a string (a fresh scan from there reads the rest the same way), so only a `{`
 * that a scan saw inside a string costs a scan of its own. Adversarial text can still make that
 * quadratic: past a budget the rescan stops, and the fallback's marker check keeps what is left
 * from ever being sent.
 */
class ObjectEnds {
  readonly #text: string;
  readonly #settled = new Map<number, number | undefined>();
  #budget: number;

  constructor(text: string) {
    this.#text = text;
    this.#budget = 16 * text.length + 65_536;
  }

  get exhausted(): boolean {
    return this.#budget <= 0;
  }

  /** The offset after the closing `}`, or `undefined` if the object never closes. */
  of(start: number): number | undefined {
    if (!this.#settled.has(start)) this.#scanFrom(start);
    return this.#settled.get(start);
  }

  #scanFrom(start: number): void {
    const text = this.#text;
    const open: number[] = [];
    let inString = false;
    let escaped = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === "\\") escaped = true;
        else if (c === '"') inString = false;
      } else if (c === '"') {
        inString = true;
      } else if (c === "{") {
        open.push(i);
      } else if (c === "}") {
        const opened = open.pop();
        if (opened !== undefined) this.#settled.set(opened, i + 1);
        if (open.length === 0) {
          this.#budget -= i + 1 - start;
          return;
        }
      }
    }
    this.#budget -= text.length - start;
    for (const unclosed of open) this.#settled.set(unclosed, undefined);
  }
}
