/**
 * Where the envelope sits in a turn's text, as UTF-16 offsets (`text.slice(start, end)`).
 * `complete: false` means the object was never closed: `end` is the text's length.
 */
export interface EnvelopeSpan {
  readonly start: number;
  readonly end: number;
  readonly complete: boolean;
}
