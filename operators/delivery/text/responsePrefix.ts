import { charCount } from "./graphemes.js";

/**
 * OpenClaw's response prefix (`peers.md` §8): a template resolved against the model the agent
 * reports, then put in front of each reply message. Semantics from the OpenClaw 2026.9.6 build:
 * `src/auto-reply/reply/response-prefix-template.ts` (template, short model name),
 * `src/agents/identity.ts` (`"auto"`), `src/auto-reply/reply/normalize-reply.ts` (applying it).
 */

export interface PrefixVariables {
  /** Full model id as the agent reports it, e.g. `openai/gpt-5.4` or `claude-opus-4-6-20260205`. */
  readonly model?: string;
  readonly provider?: string;
  readonly thinkingLevel?: string;
  readonly identityName?: string;
}

// OpenClaw's variable syntax. Linear: the name class excludes `{` and `}`, so each character is
// scanned from at most one opening brace.
const TEMPLATE_VARIABLE = /\{([a-zA-Z][a-zA-Z0-9.]*)\}/g;
const MODEL_VARIABLES: ReadonlySet<string> = new Set(["model", "modelfull", "provider", "thinkinglevel", "think"]);
const HEARTBEAT_TOKEN = "HEARTBEAT_OK";

/** OpenClaw's short model name: drop the provider path, a -YYYYMMDD suffix, and -latest. */
export function shortModelName(model: string): string {
  const name = model.slice(model.lastIndexOf("/") + 1);
  // In this order, as OpenClaw: `x-latest-20260101` → `x`, `x-20260101-latest` → `x-20260101`.
  return name.replace(/-\d{8}$/, "").replace(/-latest$/, "");
}

/**
 * The prefix a template resolves to: "auto" → `[<identityName>]` (or "" without a name);
 * {model} {modelFull} {provider} {thinkingLevel} {think} {identity.name} {identityName}; a
 * variable with no value, or an unknown one, is left literally. Names match case-insensitively,
 * as OpenClaw's (`{MODEL}` is `{model}`).
 */
export function resolveResponsePrefix(template: string, vars: PrefixVariables): string {
  const name = normalizedName(vars.identityName);
  const source = template === "auto" ? (name === undefined ? "" : `[${name}]`) : template;
  return source.replace(TEMPLATE_VARIABLE, (match: string, variable: string) => valueOf(variable.toLowerCase(), vars, name) ?? match);
}

/**
 * Whether a resolved prefix still holds a model placeholder ({model}, {modelFull}, {provider},
 * {thinkingLevel}, {think}, any case) — such a prefix is not applied: a send made outside a model
 * run (OpenClaw's message tool) would otherwise show the braces to the user.
 */
export function hasUnresolvedModelVariable(prefix: string): boolean {
  for (const [, variable] of prefix.matchAll(TEMPLATE_VARIABLE)) {
    if (variable !== undefined && MODEL_VARIABLES.has(variable.toLowerCase())) return true;
  }
  return false;
}

/**
 * `prefix + " " + text`, unless the prefix is "", the text is empty, the text already starts with
 * the prefix, or the text is HEARTBEAT_OK (OpenClaw compares it trimmed). A text whose first line
 * starts a Markdown block (see `startsMarkdownBlock`) gets the prefix on a line of its own instead:
 * `🤖 ```ts` opens no code block, and its closer would then open one that never closes. Either way
 * the prefix costs `prefixRoom(prefix)` chars.
 */
export function withResponsePrefix(prefix: string, text: string): string {
  if (prefix === "" || text === "" || text.startsWith(prefix) || text.trim() === HEARTBEAT_TOKEN) return text;
  return `${prefix}${startsMarkdownBlock(text) ? "\n" : " "}${text}`;
}

/** Chars (Unicode scalar values, as platform limits count) the prefix adds to a message: itself and its separator. */
export function prefixRoom(prefix: string): number {
  return prefix === "" ? 0 : charCount(prefix) + 1;
}

/**
 * Whether the text's first line starts a Markdown block that text before it on the line would
 * unmake (CommonMark): a code fence (``` or ~~~), an ATX heading, a block quote, a list item, a
 * table row, indented code. Reads only the first few chars.
 */
export function startsMarkdownBlock(text: string): boolean {
  return MARKDOWN_BLOCK_START.test(text.slice(0, BLOCK_START_CHARS));
}

// Up to three spaces, then a fence, heading, quote, bullet, ordered item or table pipe; or four
// spaces / a tab before text (indented code). An ordered item's number has at most nine digits.
const MARKDOWN_BLOCK_START = /^(?: {0,3}(?:```|~~~|(?:#{1,6}|[-+*]|\d{1,9}[.)])(?=[ \t\r\n]|$)|>|\|)|(?: {4}|\t)(?=[ \t]*\S))/;
const BLOCK_START_CHARS = 16;

/**
 * Why a resolved prefix cannot be put before a message and leave it valid Markdown, or undefined:
 * a line break (it would no longer be one line's prefix) or a code fence of its own (every message
 * would open a code block).
 */
export function prefixProblem(prefix: string): "line_break" | "fence" | undefined {
  if (/[\r\n\u2028\u2029]/.test(prefix)) return "line_break";
  if (/^ {0,3}(?:```|~~~)/.test(prefix)) return "fence";
  return undefined;
}

function valueOf(variable: string, vars: PrefixVariables, identityName: string | undefined): string | undefined {
  switch (variable) {
    case "model":
      return vars.model === undefined ? undefined : shortModelName(vars.model);
    case "modelfull":
      return fullModelName(vars);
    case "provider":
      return vars.provider;
    case "thinkinglevel":
    case "think":
      return vars.thinkingLevel;
    case "identity.name":
    case "identityname":
      return identityName;
    default:
      return undefined;
  }
}

/** OpenClaw's `{modelFull}` is `<provider>/<model>`; a model id that already names its provider keeps it once. */
function fullModelName({ model, provider }: PrefixVariables): string | undefined {
  if (model === undefined) return undefined;
  if (provider === undefined || provider === "" || model.startsWith(`${provider}/`)) return model;
  return `${provider}/${model}`;
}

/** As OpenClaw reads `identity.name`: trimmed, and a blank name is no name. */
function normalizedName(name: string | undefined): string | undefined {
  const trimmed = name?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}
