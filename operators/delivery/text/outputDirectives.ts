import { rustTrim } from "./rustWhitespace.js";

/**
 * The `[[key:value]]` header an agent may put at the very start of its output
 * (`openab-protocol.md` §10), and the content after it.
 */
export interface OutputDirectives {
  /** `[[reply_to:<message_id>]]`: quote/reply to that platform message. */
  readonly replyTo?: string;
  /** `[[delivery:<schema>]]`: the delivery schema the agent declares for this turn. */
  readonly delivery?: string;
  /** The output with the directive header removed. */
  readonly body: string;
}

interface DirectiveLine {
  readonly key: string;
  readonly value: string;
  /** Text after the closing `]]`, trimmed: the first content line when non-empty. */
  readonly rest: string;
}

/**
 * Parses the directive header, exactly as OpenAB's `parse_output_directives`: consecutive
 * directive lines from the start, the first non-directive line ends the header, text after a
 * directive's `]]` becomes the first content line, unknown keys and invalid values are dropped
 * with their line, and the last valid value of a key wins.
 */
export function parseOutputDirectives(text: string): OutputDirectives {
  let replyTo: string | undefined;
  let delivery: string | undefined;
  let contentStart = 0;
  let inlineContent: string | undefined;

  while (contentStart < text.length) {
    const newline = text.indexOf("\n", contentStart);
    const lineEnd = newline === -1 ? text.length : newline;
    // Trimming also drops a CRLF's `\r`, as Rust's `lines()` + `trim()` do.
    const directive = parseDirectiveLine(rustTrim(text.slice(contentStart, lineEnd)));
    if (directive === undefined) break;

    // Unknown keys (upstream logs them at debug) and invalid values still lose their line.
    const value = validDirectiveValue(directive.value);
    if (directive.key === "reply_to" && value !== undefined) replyTo = value;
    if (directive.key === "delivery" && value !== undefined) delivery = value;

    contentStart = newline === -1 ? text.length : newline + 1;
    if (directive.rest !== "") {
      inlineContent = directive.rest;
      break;
    }
  }

  return {
    ...(replyTo === undefined ? {} : { replyTo }),
    ...(delivery === undefined ? {} : { delivery }),
    body: joinBody(inlineContent, text.slice(contentStart)),
  };
}

/** `[[key:value]]…` with a colon before the first `]]`, or `undefined` when the line is content. */
function parseDirectiveLine(trimmed: string): DirectiveLine | undefined {
  if (!trimmed.startsWith("[[")) return undefined;
  const afterOpen = trimmed.slice(2);
  const close = afterOpen.indexOf("]]");
  if (close === -1) return undefined;
  const inner = afterOpen.slice(0, close);
  const colon = inner.indexOf(":");
  // `[[Summary]]` has no colon: a heading, not a directive.
  if (colon === -1) return undefined;
  return {
    key: rustTrim(inner.slice(0, colon)),
    value: inner.slice(colon + 1),
    rest: rustTrim(afterOpen.slice(close + 2)),
  };
}

// Ids and schema names only: this also keeps whitespace and control characters out of the frame.
const DIRECTIVE_VALUE = /^[A-Za-z0-9._-]{1,64}$/;

/** The trimmed value when it is a valid `reply_to`/`delivery` value, else `undefined`. */
function validDirectiveValue(raw: string): string | undefined {
  const value = rustTrim(raw);
  return DIRECTIVE_VALUE.test(value) ? value : undefined;
}

/** Inline content after a directive heads the body, joined to the remaining lines by `\n`. */
function joinBody(inlineContent: string | undefined, remaining: string): string {
  if (inlineContent === undefined) return remaining;
  return remaining === "" ? inlineContent : `${inlineContent}\n${remaining}`;
}
