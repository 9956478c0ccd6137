/**
 * Text the gateway or the agent supplied (an ack's `error`, a JSON-RPC error message, a tool title,
 * an id), made fit for a log line or a user: bounded, and without anything that could drive a
 * terminal or reorder text. Applied once, where the string enters the broker.
 */

/** How many characters (UTF-16 code units) of untrusted text survive by default, marker included. */
export const UNTRUSTED_TEXT_MAX_CHARS = 500;

/** The smallest bound accepted: room for some text and the longest marker. */
export const UNTRUSTED_TEXT_MIN_CHARS = 32;

/** The longest name or id chosen by the other side (a method, a session id, a request id) kept in a log field. */
export const UNTRUSTED_NAME_MAX_CHARS = 100;

/** At most this many input code units are examined per output code unit allowed: the work is bounded by the output, never by the input. */
const SCAN_PER_CHAR = 16;

export interface UntrustedTextOptions {
  /** The longest result, truncation marker included (default 500, at least 32). */
  readonly maxChars?: number;
  /**
   * Keep `\n` and `\t` (text a user reads, e.g. an agent's error). Otherwise the text becomes one
   * line: `\n`, `\t`, U+2028 and U+2029 become a space (a log field).
   */
  readonly multiline?: boolean;
}

/** What one scan produced, and how many input code units it examined (the work, pinned by tests). */
export interface UntrustedTextScan {
  readonly text: string;
  readonly scanned: number;
}

/**
 * `text` bounded and cleaned. Removed: C0 controls (except `\n`/`\t` when multiline; `\r` always),
 * DEL, C1 controls, whole ANSI/ECMA-48 escape sequences (CSI, also as U+009B; OSC/DCS/APC/PM/SOS
 * strings to their terminator; two- and three-character escapes), bidi embeddings, overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069) and lone surrogates. Everything else, emoji included, is kept.
 *
 * A longer result is cut (never inside a surrogate pair) and ends in `…(+N chars)`, N counting the
 * input's code units not shown. The result is at most `maxChars` long, and cleaning it again
 * returns it unchanged. One pass that stops after `16 × maxChars` input code units: a 1 MB input
 * costs no more than a short one.
 */
export function untrustedText(text: string, options: UntrustedTextOptions = {}): string {
  return scanUntrustedText(text, options).text;
}

/** A name or id the gateway or the agent chose, as a log field: one line, at most 100 chars, clean. */
export function untrustedName(name: string): string {
  return untrustedText(name, { maxChars: UNTRUSTED_NAME_MAX_CHARS });
}

/**
 * Whether `text` can be logged as it is: at most `maxChars` long, and nothing in it that
 * `untrustedText` (one line) would remove or replace. For ids that must stay exact.
 */
export function isPlainText(text: string, maxChars: number = UNTRUSTED_TEXT_MAX_CHARS): boolean {
  return text.length <= maxChars && untrustedText(text, { maxChars: Math.max(maxChars, UNTRUSTED_TEXT_MIN_CHARS) }) === text;
}

/** `untrustedText`, with the number of input code units it examined. */
export function scanUntrustedText(text: string, options: UntrustedTextOptions = {}): UntrustedTextScan {
  const maxChars = options.maxChars ?? UNTRUSTED_TEXT_MAX_CHARS;
  if (!Number.isSafeInteger(maxChars) || maxChars < UNTRUSTED_TEXT_MIN_CHARS) {
    throw new RangeError(`maxChars must be an integer of at least ${UNTRUSTED_TEXT_MIN_CHARS}, got ${maxChars}`);
  }
  const multiline = options.multiline === true;
  const end = Math.min(text.length, maxChars * SCAN_PER_CHAR);
  // The marker can only be shorter than this (it counts at most the whole input), so a cut here always fits.
  const cutLimit = maxChars - truncationMarker(text.length).length;
  const pieces: string[] = [];
  let kept = 0;
  let cut: { readonly pieces: number; readonly kept: number; readonly at: number } | undefined;
  let i = 0;
  while (i < end && kept <= maxChars) {
    // A run of printable ASCII (most text) goes as one slice, never past the cut point or the bound:
    // a whole agent line is cleaned at a fraction of the per-character cost.
    const run = plainRunEnd(text, i, Math.min(end, i + (cut === undefined ? cutLimit - kept : maxChars + 1 - kept)), multiline);
    if (run > i) {
      pieces.push(text.slice(i, run));
      kept += run - i;
      i = run;
      continue;
    }
    const step = stepAt(text, i, end, multiline);
    if (cut === undefined && kept + step.kept.length > cutLimit) cut = { pieces: pieces.length, kept, at: i };
    if (step.kept !== "") {
      pieces.push(step.kept);
      kept += step.kept.length;
    }
    i = step.next;
  }
  if (i >= text.length && kept <= maxChars) return { text: pieces.join(""), scanned: i };
  const at = cut ?? { pieces: pieces.length, kept, at: i };
  return { text: pieces.slice(0, at.pieces).join("") + truncationMarker(text.length - at.at), scanned: i };
}

/** `…(+999,500 chars)`: how much of the input was not shown. */
export function truncationMarker(hidden: number): string {
  return `…(+${grouped(hidden)} chars)`;
}

function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}

/** Where the run of characters kept as they are (printable ASCII; `\n` and `\t` when multiline) that starts at `i` ends, at most at `limit`. */
function plainRunEnd(text: string, i: number, limit: number, multiline: boolean): number {
  let j = i;
  while (j < limit) {
    const code = text.charCodeAt(j);
    if ((code < 0x20 || code >= 0x7f) && !(multiline && (code === 0x0a || code === 0x09))) break;
    j++;
  }
  return j;
}

interface Step {
  /** What the text at the index becomes: `""` (removed), one character, or a surrogate pair. */
  readonly kept: string;
  readonly next: number;
}

const ESC = 0x1b;
const BEL = 0x07;

/** One character or escape sequence at `i`, never reading at or past `end`. */
function stepAt(text: string, i: number, end: number, multiline: boolean): Step {
  const code = text.charCodeAt(i);
  if (code >= 0x20 && code < 0x7f) return { kept: text[i] as string, next: i + 1 };
  if (code === 0x0a || code === 0x09) return { kept: multiline ? (text[i] as string) : " ", next: i + 1 };
  if (code === 0x2028 || code === 0x2029) return { kept: multiline ? "\n" : " ", next: i + 1 };
  if (code === ESC) return { kept: "", next: escapeEnd(text, i + 1, end) };
  if (code === 0x9b) return { kept: "", next: csiEnd(text, i + 1, end) };
  // The other C0 controls, DEL and C1. An 8-bit string introducer (U+009D OSC…) goes alone: hardly
  // any terminal honours it in UTF-8, and swallowing up to a terminator would hide the text after it.
  if (code < 0xa0) return { kept: "", next: i + 1 };
  if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)) return { kept: "", next: i + 1 };
  if (code >= 0xd800 && code <= 0xdbff) {
    const low = i + 1 < end ? text.charCodeAt(i + 1) : 0;
    return low >= 0xdc00 && low <= 0xdfff ? { kept: text.slice(i, i + 2), next: i + 2 } : { kept: "", next: i + 1 };
  }
  if (code >= 0xdc00 && code <= 0xdfff) return { kept: "", next: i + 1 }; // a low surrogate without its high one
  return { kept: text[i] as string, next: i + 1 };
}

/** After an ESC at `i - 1`: where its sequence ends. A lone ESC is removed by itself. */
function escapeEnd(text: string, i: number, end: number): number {
  if (i >= end) return i;
  const code = text.charCodeAt(i);
  if (code === 0x5b) return csiEnd(text, i + 1, end); // ESC [
  if (code === 0x5d || code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f) return controlStringEnd(text, i + 1, end); // ] P X ^ _
  // ESC, intermediates (0x20–0x2F), one final (0x30–0x7E): `ESC ( B`, `ESC 7`, `ESC c`.
  let j = i;
  while (j < end && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
  return j < end && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x7e ? j + 1 : j;
}

/** A CSI's parameters (0x30–0x3F), intermediates (0x20–0x2F) and final (0x40–0x7E); a malformed one ends before the odd character. */
function csiEnd(text: string, i: number, end: number): number {
  let j = i;
  while (j < end && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x3f) j++;
  while (j < end && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
  return j < end && text.charCodeAt(j) >= 0x40 && text.charCodeAt(j) <= 0x7e ? j + 1 : j;
}

/** An OSC/DCS/SOS/PM/APC string runs to BEL or ST (`ESC \` or U+009C); unterminated, to the end of the scan. */
function controlStringEnd(text: string, i: number, end: number): number {
  for (let j = i; j < end; j++) {
    const code = text.charCodeAt(j);
    if (code === BEL || code === 0x9c) return j + 1;
    if (code === ESC && j + 1 < end && text.charCodeAt(j + 1) === 0x5c) return j + 2;
  }
  return end;
}
