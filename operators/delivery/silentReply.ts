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
  const unwrapped = text.replace(new RegExp(`^${EDGE}+|${EDGE}+$`, "gu"), "");
  return whole.test(unwrapped) || isSilentAction(text, whole);
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
  const trailing = new RegExp(`(?:^|\\s+)[\\p{P}\\x60~]*${t}(?:\\s+${t})*[\\p{P}\\x60~]*\\s*$`, "iu");
  const match = trailing.exec(text);
  return match === null ? text : text.slice(0, match.index);
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
