/**
 * Where the rest of a broken envelope ends, after the object the finder took for it. A stray `}`
 * in the agent's JSON closes the envelope early (`{"schema":…,"messages":[}{"id":"b1","text":…}]}`)
 * and leaves the rest of it after the span: bubble text, braces, no marker. Prose never continues
 * with `,` `:` `]` or `}`, and an object right after a broken envelope is the agent's JSON too, so
 * a tail that starts with one of those is the envelope's JSON, read token by token
 * (strings, objects, numbers, literals, punctuation) up to the first thing JSON cannot hold.
 * Linear: each unit is read once.
 */
export function envelopeDebrisEnd(text: string, from: number): number {
  const first = skipWhitespace(text, from);
  if (!CONTINUATIONS.has(text.charCodeAt(first))) return from;
  let at = first;
  for (;;) {
    const token = skipWhitespace(text, at);
    const end = tokenEnd(text, token);
    if (end === token) return at;
    at = end;
  }
}

/** The end of the JSON token at `at`, or `at` when none starts there. */
function tokenEnd(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (PUNCTUATION.has(c)) return at + 1;
  if (c === QUOTE) return stringEnd(text, at);
  if (c === OPEN_BRACE) return objectEnd(text, at);
  const match = WORD.exec(text.slice(at, at + WORD_LIMIT));
  return match === null ? at : at + match[0].length;
}

/** After the closing quote; a string that never closes runs to the end. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return text.length;
}

/** After the `}` that closes the object at `at` (string state fresh from it), else the end. */
function objectEnd(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i) - 1;
    else if (c === OPEN_BRACE) depth++;
    else if (c === CLOSE_BRACE && --depth === 0) return i + 1;
  }
  return text.length;
}

function skipWhitespace(text: string, at: number): number {
  while (at < text.length && WHITESPACE.has(text.charCodeAt(at))) at++;
  return at;
}

// The longest number or literal read; a longer one ends the debris there.
const WORD_LIMIT = 64;
const WORD = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![\w.])/;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
/** What only JSON writes right after a value (a separator, a closer), or another object. */
const CONTINUATIONS = new Set([0x2c, 0x3a, 0x5d, 0x7b, 0x7d]);
const PUNCTUATION = new Set([0x2c, 0x3a, 0x5b, 0x5d, 0x7d]);
