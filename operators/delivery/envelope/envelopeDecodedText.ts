/**
 * A turn's text with its JSON string escapes decoded, in one left-to-right pass, with a map from
 * each decoded unit back to where it was written. The envelope finder and the leak guard read
 * keys and values here, so `"\u0073chema"` is the key `schema` however it was spelled.
 *
 * Decoding is context-free: every `\` starts an escape, in prose too. Inside a JSON string that is
 * JSON's own reading (a backslash is only legal there); in prose it can only reveal more markers,
 * which makes the guard stricter, never looser. Escapes JSON does not know (`\x`, a short `\u12`)
 * stay as written.
 */
export interface DecodedText {
  /** The text with escapes decoded; an escaped quote is `ESCAPED_QUOTE`, never a delimiter. */
  readonly view: string;
  /** The raw offset where view unit `i` was written; `rawOffset(view.length)` is the text's length. */
  rawOffset(viewIndex: number): number;
}

/**
 * What `\"` and `\u0022` decode to here: string content, so it must not close or open a key the
 * way a real quote does (`"\u0022messages\u0022"` is a value holding quotes, not the key).
 */
export const ESCAPED_QUOTE = "\uffff";

/** Decodes every escape once; text without a backslash is its own view. */
export function decodeJsonEscapes(text: string): DecodedText {
  let escape = text.indexOf("\\");
  if (escape === -1) return { view: text, rawOffset: (viewIndex) => viewIndex };

  const parts: string[] = [];
  // Where each view unit came from; one more entry for the end.
  const raw = new Int32Array(text.length + 1);
  let length = 0;
  let from = 0;
  while (escape !== -1) {
    // The plain run before the escape, as it is.
    parts.push(text.slice(from, escape));
    for (let i = from; i < escape; i++) raw[length++] = i;
    const { unit, width } = escapeAt(text, escape);
    parts.push(String.fromCharCode(unit));
    raw[length++] = escape;
    from = escape + width;
    escape = text.indexOf("\\", from);
  }
  parts.push(text.slice(from));
  for (let i = from; i < text.length; i++) raw[length++] = i;
  raw[length] = text.length;
  return { view: parts.join(""), rawOffset: (viewIndex) => raw[viewIndex] ?? text.length };
}

/** The unit the escape at `at` (a backslash) stands for, and how many raw units it spans. */
export function escapeAt(text: string, at: number): { unit: number; width: number } {
  const next = text.charCodeAt(at + 1);
  const simple = SIMPLE_ESCAPES.get(next);
  if (simple !== undefined) return { unit: simple, width: 2 };
  if (next === LETTER_U) {
    const code = hexAt(text, at + 2);
    if (code !== undefined) return { unit: code === QUOTE ? ESCAPED_QUOTE_UNIT : code, width: 6 };
  }
  return { unit: BACKSLASH, width: 1 };
}

/** Four hex digits (either case) at `at` as a UTF-16 unit, else `undefined`. */
function hexAt(text: string, at: number): number | undefined {
  if (at + 4 > text.length) return undefined;
  let code = 0;
  for (let k = at; k < at + 4; k++) {
    const digit = hexDigit(text.charCodeAt(k));
    if (digit === undefined) return undefined;
    code = code * 16 + digit;
  }
  return code;
}

function hexDigit(c: number): number | undefined {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : undefined;
}

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const LETTER_U = 0x75;
const ESCAPED_QUOTE_UNIT = ESCAPED_QUOTE.charCodeAt(0);
// JSON's two-character escapes (RFC 8259 §7), `\"` as string content.
const SIMPLE_ESCAPES = new Map<number, number>([
  [QUOTE, ESCAPED_QUOTE_UNIT],
  [BACKSLASH, BACKSLASH],
  [0x2f, 0x2f],
  [0x62, 0x08],
  [0x66, 0x0c],
  [0x6e, 0x0a],
  [0x72, 0x0d],
  [0x74, 0x09],
]);
