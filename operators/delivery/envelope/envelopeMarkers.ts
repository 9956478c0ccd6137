import { decodeJsonEscapes } from "./envelopeDecodedText.js";

/** The schema OpenAB's agents write, and the default `[delivery] schema`. */
export const TURN_SCHEMA = "openab.turn.v1";

/** Upstream's `looks_like_envelope` keys, quotes included. */
const KEYS = ['"schema"', '"messages"'] as const;

// Every key of `openab.turn.v1` (§2), quoted, then a colon: a key, not a word in prose.
const FIELD_KEY = /"(?:schema|messages|next|id|text|type|name|arguments)"[ \t\r\n]*:/;

/**
 * Text holding one of these is, or contains, an envelope (or a piece of one): the `"messages"`
 * key, the `openab.turn.` schema family, and `schema` (the configured `[delivery] schema`, which
 * may name another family).
 */
export function envelopeMarkers(schema: string = TURN_SCHEMA): readonly string[] {
  return ['"messages"', "openab.turn.", schema];
}

/**
 * Where a text holds envelope keys and markers, by what they decode to: each is found as written
 * and in the text with its JSON escapes decoded (`decodeJsonEscapes`, one pass), and answered as
 * raw offsets. Built once per text; every question after that is a lookup, so the finder asks
 * one per candidate object without reading the text again.
 */
export class EnvelopeMarkerIndex {
  /** Upstream's key test (`"schema"`, `"messages"`). */
  readonly #keys: readonly Occurrences[];
  /** turnstream's markers (`envelopeMarkers`). */
  readonly #markers: readonly Occurrences[];
  readonly #text: string;
  readonly #view: string;

  constructor(text: string, schema: string = TURN_SCHEMA) {
    const decoded = decodeJsonEscapes(text);
    this.#text = text;
    this.#view = decoded.view;
    const decodedOnly = decoded.view !== text;
    const find = (needle: string): Occurrences[] => [
      rawOccurrences(text, needle),
      ...(decodedOnly ? [viewOccurrences(decoded.view, needle, decoded.rawOffset)] : []),
    ];
    const cache = new Map<string, Occurrences[]>();
    const lookup = (needle: string) => cache.get(needle) ?? cache.set(needle, find(needle)).get(needle) ?? [];
    this.#keys = KEYS.flatMap(lookup);
    this.#markers = envelopeMarkers(schema).flatMap(lookup);
  }

  /** Whether the text holds a marker anywhere. */
  get any(): boolean {
    return this.#markers.some((list) => list.starts.length > 0);
  }

  /** The raw offset of the last marker's start, or -1. */
  get lastStart(): number {
    return Math.max(-1, ...this.#markers.map((list) => list.starts[list.starts.length - 1] ?? -1));
  }

  /**
   * Whether the text holds a key of the envelope's shape (`"text":`, `"id":`, `"next":`, …), as
   * written or decoded: what is left of an envelope the finder could not place whole.
   */
  get fieldKeys(): boolean {
    return FIELD_KEY.test(this.#text) || (this.#view !== this.#text && FIELD_KEY.test(this.#view));
  }

  /** Whether `text.slice(start, end)` holds upstream's key (`"schema"` or `"messages"`). */
  keyedWithin(start: number, end: number): boolean {
    return this.#keys.some((list) => list.within(start, end));
  }

  /** Whether `text.slice(start, end)` holds a marker. */
  markedWithin(start: number, end: number): boolean {
    return this.#markers.some((list) => list.within(start, end));
  }

  /** Whether a marker lies wholly before `start` or wholly after `end`. */
  markedOutside(start: number, end: number): boolean {
    return this.#markers.some((list) => list.outside(start, end));
  }
}

/**
 * One needle's occurrences as raw ranges, in increasing start. Ends increase with the starts
 * (same needle, same decoded length, a monotone offset map), so the first occurrence at or after
 * `start` is the one that ends soonest.
 */
class Occurrences {
  readonly starts: readonly number[];
  readonly #ends: readonly number[];
  // The finder asks with non-decreasing starts; a cursor keeps that linear.
  #cursor = 0;

  constructor(starts: readonly number[], ends: readonly number[]) {
    this.starts = starts;
    this.#ends = ends;
  }

  within(start: number, end: number): boolean {
    const at = this.#firstAtOrAfter(start);
    const ends = this.#ends[at];
    return ends !== undefined && ends <= end;
  }

  outside(start: number, end: number): boolean {
    const firstEnd = this.#ends[0];
    const lastStart = this.starts[this.starts.length - 1];
    return (firstEnd !== undefined && firstEnd <= start) || (lastStart !== undefined && lastStart >= end);
  }

  #firstAtOrAfter(start: number): number {
    const starts = this.starts;
    // A backwards question (the finder asks a few before its rescan) searches from the front.
    if (this.#cursor > 0 && (starts[this.#cursor - 1] ?? -1) >= start) {
      let low = 0;
      let high = this.#cursor;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if ((starts[middle] ?? Infinity) < start) low = middle + 1;
        else high = middle;
      }
      this.#cursor = low;
    }
    while (this.#cursor < starts.length && (starts[this.#cursor] ?? Infinity) < start) this.#cursor++;
    return this.#cursor;
  }
}

function rawOccurrences(text: string, needle: string): Occurrences {
  const starts = indexesOf(text, needle);
  return new Occurrences(
    starts,
    starts.map((start) => start + needle.length),
  );
}

function viewOccurrences(view: string, needle: string, rawOffset: (viewIndex: number) => number): Occurrences {
  const at = indexesOf(view, needle);
  return new Occurrences(
    at.map((viewIndex) => rawOffset(viewIndex)),
    at.map((viewIndex) => rawOffset(viewIndex + needle.length)),
  );
}

/** Every offset where `needle` starts, overlapping ones included. */
function indexesOf(text: string, needle: string): number[] {
  if (needle === "") return Array.from({ length: text.length + 1 }, (_, offset) => offset);
  const at: number[] = [];
  for (let offset = text.indexOf(needle); offset !== -1; offset = text.indexOf(needle, offset + 1)) at.push(offset);
  return at;
}
