/**
 * A reply's Markdown as Slack's mrkdwn (upstream's `markdown_to_mrkdwn`, §3.6), rule for rule:
 * `**x**` → `*x*`; then `*x*` → `_x_` (so bold never turns italic); `[t](u)` → `<u|t>`; a heading
 * line `# x` … `###### x` → `*x*`; a fence opener with a language (three backticks and a word)
 * loses the language. Rules apply within a line, as upstream's patterns match.
 *
 * One difference, on purpose: code is left as written — the lines of a fenced block and the inside
 * of `` `inline code` `` — where upstream's patterns rewrite it too (`**kwargs` in Python code would
 * lose a star). Slack shows code verbatim, so only this keeps the code the agent wrote.
 *
 * Linear in its input: each line is read as an array of code units once per rule, and every
 * "next closing mark" is looked up in a table built right to left, so nothing is searched twice.
 * Nothing is escaped (`&`, `<`, `>`), as upstream: the agent's `<@U…>` mentions keep working.
 */
export function markdownToMrkdwn(markdown: string): string {
  const lines = markdown.split("\n");
  let inFence = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    if (isFence(line)) {
      if (!inFence) lines[index] = fenceWithoutLanguage(line);
      inFence = !inFence;
    } else if (!inFence) {
      lines[index] = convertLine(line);
    }
  }
  return lines.join("\n");
}

// Code units, and two values no code unit has: a bold mark, and code (a unit + OPAQUE), which no rule reads.
const STAR = 0x2a;
const UNDERSCORE = 0x5f;
const HASH = 0x23;
const SPACE = 0x20;
const TAB = 0x09;
const BACKTICK = 0x60;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;
const LESS = 0x3c;
const PIPE = 0x7c;
const GREATER = 0x3e;
const BOLD = -1;
const OPAQUE = 0x10000;

/** A fence line: up to three spaces, then three backticks. */
function isFence(line: string): boolean {
  let at = 0;
  while (at < 3 && line.charCodeAt(at) === SPACE) at++;
  return line.startsWith("```", at);
}

/** "```rust" → "```": a fence opener followed only by a word (letters, digits, `_`). */
function fenceWithoutLanguage(line: string): string {
  const fence = line.indexOf("```") + 3;
  const language = line.slice(fence);
  return language !== "" && isWord(language) ? line.slice(0, fence) : line;
}

function isWord(text: string): boolean {
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    const word = (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === UNDERSCORE;
    if (!word) return false;
  }
  return true;
}

function convertLine(line: string): string {
  const heading = headingStart(line);
  const units = withCodeOpaque(line.slice(heading));
  const converted = links(italic(bold(units)));
  const text = toText(converted);
  return heading > 0 ? `*${text}*` : text;
}

/** Where a heading's text starts (after `#`…`######` and spaces), or 0 for a line that is no heading. */
function headingStart(line: string): number {
  let hashes = 0;
  while (hashes < line.length && line.charCodeAt(hashes) === HASH) hashes++;
  if (hashes === 0 || hashes > 6) return 0;
  let at = hashes;
  while (line.charCodeAt(at) === SPACE || line.charCodeAt(at) === TAB) at++;
  return at > hashes && at < line.length ? at : 0;
}

/** The line's code units, those of each `` `code` `` span (backticks included) made opaque. */
function withCodeOpaque(line: string): number[] {
  const units = new Array<number>(line.length);
  for (let at = 0; at < line.length; at++) units[at] = line.charCodeAt(at);
  let open = -1;
  for (let at = 0; at < units.length; at++) {
    if (units[at] !== BACKTICK) continue;
    if (open < 0) {
      open = at;
      continue;
    }
    for (let inside = open; inside <= at; inside++) units[inside] = (units[inside] as number) + OPAQUE;
    open = -1;
  }
  return units;
}

/** For each index, the first index at or after it where `matches` holds (`length` when none). */
function nextWhere(units: readonly number[], matches: (at: number) => boolean): Int32Array {
  const next = new Int32Array(units.length + 2).fill(units.length);
  for (let at = units.length - 1; at >= 0; at--) next[at] = matches(at) ? at : (next[at + 1] as number);
  return next;
}

/** `**x**` → bold marks around x (x at least one unit): the shortest match from each opener, as `\*\*(.+?)\*\*`. */
function bold(units: readonly number[]): number[] {
  const nextPair = nextWhere(units, (at) => units[at] === STAR && units[at + 1] === STAR);
  const out: number[] = [];
  let at = 0;
  while (at < units.length) {
    if (units[at] === STAR && units[at + 1] === STAR) {
      const close = at + 3 <= units.length ? (nextPair[at + 3] as number) : units.length;
      if (close < units.length) {
        out.push(BOLD);
        append(out, units, at + 2, close);
        out.push(BOLD);
        at = close + 2;
        continue;
      }
    }
    out.push(units[at] as number);
    at++;
  }
  return out;
}

/** `*x*` → `_x_` (x at least one unit, no star), as `\*([^*]+)\*`; bold marks are not stars. */
function italic(units: readonly number[]): number[] {
  const nextStar = nextWhere(units, (at) => units[at] === STAR);
  const out: number[] = [];
  let at = 0;
  while (at < units.length) {
    if (units[at] === STAR) {
      const close = nextStar[at + 1] as number;
      if (close < units.length && close > at + 1) {
        out.push(UNDERSCORE);
        append(out, units, at + 1, close);
        out.push(UNDERSCORE);
        at = close + 1;
        continue;
      }
    }
    out.push(units[at] as number);
    at++;
  }
  return out;
}

/** `[t](u)` → `<u|t>` (t without `]`, u without `)`, both non-empty), as `\[([^\]]+)\]\(([^)]+)\)`. */
function links(units: readonly number[]): number[] {
  const nextBracket = nextWhere(units, (at) => units[at] === CLOSE_BRACKET);
  const nextParen = nextWhere(units, (at) => units[at] === CLOSE_PAREN);
  const out: number[] = [];
  let at = 0;
  while (at < units.length) {
    if (units[at] === OPEN_BRACKET) {
      const bracket = nextBracket[at + 1] as number;
      if (bracket < units.length && bracket > at + 1 && units[bracket + 1] === OPEN_PAREN) {
        const paren = nextParen[bracket + 2] as number;
        if (paren < units.length && paren > bracket + 2) {
          out.push(LESS);
          append(out, units, bracket + 2, paren);
          out.push(PIPE);
          append(out, units, at + 1, bracket);
          out.push(GREATER);
          at = paren + 1;
          continue;
        }
      }
    }
    out.push(units[at] as number);
    at++;
  }
  return out;
}

/** Copies `units[from..to)` onto `out` (no spread: a long line would pass too many arguments). */
function append(out: number[], units: readonly number[], from: number, to: number): void {
  for (let at = from; at < to; at++) out.push(units[at] as number);
}

function toText(units: readonly number[]): string {
  let text = "";
  const CHUNK = 8192;
  for (let start = 0; start < units.length; start += CHUNK) {
    const chunk = units.slice(start, start + CHUNK).map((unit) => (unit === BOLD ? STAR : unit & 0xffff));
    text += String.fromCharCode(...chunk);
  }
  return text;
}
