/**
 * Silent replies on the text path (issue 9): OpenClaw's `NO_REPLY` normalization
 * (`peers.md` §7.1, without the response prefix) and, for proactive turns, mono-agent's
 * `NOTHING_TO_REPORT` rule (§7.3). Pure: the caller decides what "silent" means for delivery.
 */

export type SilentReply =
  | { readonly kind: "silent"; readonly reason: "silent" | "nothing_to_report" }
  | { readonly kind: "deliver"; readonly text: string };

export interface SilentReplyOptions {
  /** `[silent] token`, e.g. `NO_REPLY`. */
  readonly token: string;
  /** `[silent] report_token`, e.g. `NOTHING_TO_REPORT`. */
  readonly reportToken: string;
  /** The turn answers an unsolicited event: the report token also means silence. */
  readonly proactive: boolean;
}

const SILENT: SilentReply = { kind: "silent", reason: "silent" };
const NOTHING_TO_REPORT: SilentReply = { kind: "silent", reason: "nothing_to_report" };

// Unicode punctuation (quotes, `.`, `*`, `_`, …) plus markdown's backtick and `~`.
const EDGE = String.raw`[\s\p{P}\x60~]`;

/**
 * The reply's fate: silent when the whole text is the token (or, proactive, the report token),
 * otherwise the text with a leading glued/newline token and a trailing token stripped. Text
 * without a token comes back as written; an empty text is delivered (the text path's
 * `_(no response)_` is not silence).
 */
export function silentReply(text: string, options: SilentReplyOptions): SilentReply {
  const { token, reportToken, proactive } = options;
  if (isSilentText(text, token)) return SILENT;
  const stripped = stripTrailingToken(stripLeadingToken(text, token), token);
  // What stripping leaves must not be a token either: a bare token never reaches a user.
  if (stripped !== text && (stripped.trim() === "" || isSilentText(stripped, token))) return SILENT;
  if (proactive && isReportText(stripped, reportToken)) return NOTHING_TO_REPORT;
  return { kind: "deliver", text: stripped };
}

/**
 * The whole text is the token, case-insensitively: repeated (`NO_REPLY NO_REPLY`), wrapped in
 * whitespace, punctuation, emphasis or quotes (`**NO_REPLY**`, `"NO_REPLY"`, `NO_REPLY.`), or
 * the JSON object `{"action":"NO_REPLY"}`.
 */
export function isSilentText(text: string, token: string): boolean {
  const whole = new RegExp(`^\\s*${escape(token)}(?:\\s+${escape(token)})*\\s*$`, "iu");
  // The raw test first: a configured token may itself start or end with punctuation.
  if (whole.test(text)) return true;
  return whole.test(trimEdges(text)) || isSilentAction(text, whole);
}

const EDGE_RUN = new RegExp(`${EDGE}+`, "uy");
const EDGE_CHAR = new RegExp(`^${EDGE}$`, "u");

/**
 * The text without leading and trailing `EDGE` characters: `/^EDGE+|EDGE+$/g` by hand, because
 * that pattern retries the trailing alternative at every position of an inner run (quadratic).
 */
function trimEdges(text: string): string {
  EDGE_RUN.lastIndex = 0;
  const start = EDGE_RUN.test(text) ? EDGE_RUN.lastIndex : 0;
  let end = text.length;
  while (end > start) {
    const width = end >= 2 && isSurrogatePair(text, end - 2) ? 2 : 1;
    if (!isEdge(text, end - width, width)) break;
    end -= width;
  }
  return text.slice(start, end);
}

const ASCII_EDGE = Array.from({ length: 0x80 }, (_, unit) => EDGE_CHAR.test(String.fromCharCode(unit)));

function isEdge(text: string, at: number, width: number): boolean {
  const unit = text.charCodeAt(at);
  return unit < 0x80 ? ASCII_EDGE[unit] === true : EDGE_CHAR.test(text.slice(at, at + width));
}

/** `NO_REPLYThe user…` or `NO_REPLY\n…`: the leading token(s) go. `NO_REPLY Sure` stays as written. */
export function stripLeadingToken(text: string, token: string): string {
  const t = escape(token);
  const leading = new RegExp(`^\\s*${t}(?:[ \\t]+${t})*(?:[ \\t]*\\r?\\n\\s*|(?=[^\\s\\p{P}]))`, "iu");
  return text.replace(leading, "");
}

/** `Sure. NO_REPLY` → `Sure.`; the token must stand alone (after whitespace), optionally emphasized or quoted. */
export function stripTrailingToken(text: string, token: string): string {
  const t = escape(token);
  if (token === "" || /\s/.test(token)) {
    // The pattern this function means. Unanchored, it retries at every position of a long
    // whitespace run, so only a token with whitespace in it (which `trailingTokenStart` cannot
    // read word by word) still uses it.
    const trailing = new RegExp(`(?:^|\\s+)${PUNCT}*${t}(?:\\s+${t})*${PUNCT}*\\s*$`, "iu");
    const match = trailing.exec(text);
    return match === null ? text : text.slice(0, match.index);
  }
  const start = trailingTokenStart(text, tokenWords(token));
  return start === undefined ? text : text.slice(0, start);
}

// Punctuation, markdown's backtick and `~`: what may wrap a trailing token.
const PUNCT = String.raw`[\p{P}\x60~]`;

/** What a whitespace-free token looks like as a whole word, with the wrapping it may carry. */
interface TokenWords {
  /** The token alone. */
  readonly bare: RegExp;
  /** Wrapped in front only: the first of several tokens. */
  readonly opened: RegExp;
  /** Wrapped behind only: the last of several tokens. */
  readonly closed: RegExp;
  /** Wrapped on either side: a token alone at the end. */
  readonly wrapped: (word: string) => boolean;
}

function tokenWords(token: string): TokenWords {
  const t = escape(token);
  const wrapped = new RegExp(`^${PUNCT}*${t}${PUNCT}*$`, "iu");
  // A token made of punctuation only would make `wrapped` try it at every position of a long
  // punctuation word; for such a token the word must be punctuation holding the token.
  const allPunct = new RegExp(`^${PUNCT}*$`, "u");
  const inside = new RegExp(t, "iu");
  return {
    bare: new RegExp(`^${t}$`, "iu"),
    opened: new RegExp(`^${PUNCT}*${t}$`, "iu"),
    closed: new RegExp(`^${t}${PUNCT}*$`, "iu"),
    wrapped: allPunct.test(token) ? (word) => allPunct.test(word) && inside.test(word) : (word) => wrapped.test(word),
  };
}

/**
 * Where `(?:^|\s+)P*T(?:\s+T)*P*\s*$` first matches, read word by word from the end (a word is
 * a maximal run without whitespace; the token has none, so every token and its wrapping is a whole
 * word): the earliest start is the most words, so take the last word, then every bare token before
 * it, then one opened token. Linear: each word is tested a bounded number of times.
 */
function trailingTokenStart(text: string, words: TokenWords): number | undefined {
  const last = wordBefore(text, text.length);
  if (last === undefined) return undefined;
  let first: Word | undefined;
  if (words.closed.test(last.text)) {
    let bare: Word | undefined;
    let word = wordBefore(text, last.start);
    while (word !== undefined && words.bare.test(word.text)) {
      bare = word;
      word = wordBefore(text, word.start);
    }
    first = word !== undefined && words.opened.test(word.text) ? word : bare;
  }
  if (first === undefined && words.wrapped(last.text)) first = last;
  if (first === undefined) return undefined;
  // The match starts at the whitespace before its first word (or at the start of the text).
  return wordBefore(text, first.start)?.end ?? 0;
}

interface Word {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** The last word ending at or before `before`, skipping the whitespace between. */
function wordBefore(text: string, before: number): Word | undefined {
  let end = before;
  while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
  if (end === 0) return undefined;
  let start = end;
  while (start > 0 && !isSpace(text.charCodeAt(start - 1))) start--;
  return { start, end, text: text.slice(start, end) };
}

const SPACE = /\s/;

/** JavaScript's `\s`, whose characters are all in the BMP: one UTF-16 unit decides. */
function isSpace(unit: number): boolean {
  return unit === 0x20 || (unit >= 0x09 && unit <= 0x0d) || (unit >= 0x80 && SPACE.test(String.fromCharCode(unit)));
}

function isSurrogatePair(text: string, at: number): boolean {
  const high = text.charCodeAt(at);
  const low = text.charCodeAt(at + 1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}

/** §7.3: the whole text, or its final line, is the report token (case-insensitive, trimmed; never a substring). */
export function isReportText(text: string, reportToken: string): boolean {
  const wanted = reportToken.trim().toUpperCase();
  // Trimmed first, so a trailing newline does not hide a final-line token.
  const trimmed = text.trim();
  const lastLine = trimmed.slice(trimmed.lastIndexOf("\n") + 1).trim();
  return trimmed.toUpperCase() === wanted || lastLine.toUpperCase() === wanted;
}

/** `{"action":"NO_REPLY"}` exactly (one key), as OpenClaw's payload-level check. */
function isSilentAction(text: string, whole: RegExp): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return false;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return false;
  const keys = Object.keys(parsed);
  const action = (parsed as Record<string, unknown>)["action"];
  return keys.length === 1 && typeof action === "string" && whole.test(action);
}

function escape(token: string): string {
  return token.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
