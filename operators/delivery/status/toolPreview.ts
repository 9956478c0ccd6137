import { redactSecrets, type Redact } from "../text/redactSecrets.js";

/**
 * A tool call's safe one-line preview, as mono-agent builds it (`../shared/reference/peers.md`
 * §11.2): at most one scalar argument, normalised, credentials redacted before it is cut to 40
 * code points. Unlike mono-agent the whole argument is redacted, not its first 4,096 code points,
 * so no cut (of the scan, or of the preview) can leave part of a secret; every step is linear.
 */

/** Where the agent works: a path under `workspaceRoot` shows relative, one under `home` as `~/…`. */
export interface PreviewPlaces {
  readonly workspaceRoot?: string;
  readonly home?: string;
}

/** How a preview longer than 40 code points is cut. */
export type Truncation = "head" | "middle" | "balanced";

const MAX_PREVIEW = 40;
const ELLIPSIS = "…";

/** The first scalar among `fields` that `input` has as own data properties of a plain object; undefined otherwise. */
export function firstScalar(input: unknown, fields: readonly string[] | "any"): string | undefined {
  if (!isPlainObject(input)) return undefined;
  const names = fields === "any" ? Object.keys(input) : fields;
  for (const name of names) {
    const descriptor = Object.getOwnPropertyDescriptor(input, name);
    if (descriptor === undefined || !("value" in descriptor)) continue;
    const value: unknown = descriptor.value;
    if (typeof value === "string") return value;
    if (typeof value === "number" && Number.isFinite(value)) return String(value);
    if (typeof value === "boolean") return String(value);
    // A command given as argv: the executable and its arguments.
    if (Array.isArray(value) && value.length > 0 && value.every((part) => typeof part === "string")) return (value as string[]).join(" ");
  }
  return undefined;
}

/** A scalar as a preview: normalised, redacted (by `redact`, which the broker gives its known secrets), then cut to 40 code points. */
export function previewText(raw: string, truncation: Truncation, places: PreviewPlaces = {}, redact: Redact = redactSecrets): string {
  return truncate(redact(normalise(raw, places)), truncation);
}

/** Control and format characters become spaces, whitespace collapses, the workspace root and home shorten. */
export function normalise(raw: string, places: PreviewPlaces = {}): string {
  let text = raw
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  const { workspaceRoot, home } = places;
  if (workspaceRoot !== undefined && workspaceRoot.length > 1) text = text.split(`${trimSlash(workspaceRoot)}/`).join("");
  if (home !== undefined && home.length > 1) text = text.split(`${trimSlash(home)}/`).join("~/");
  return text;
}

/** At most 40 code points: `head` 39 + `…`; `middle` 13 + `…` + 26 (paths); `balanced` 20 + `…` + 19 (commands). */
export function truncate(text: string, truncation: Truncation): string {
  if (text.length <= MAX_PREVIEW || !longerThan(text, MAX_PREVIEW)) return text;
  const [head, tail] = truncation === "head" ? [MAX_PREVIEW - 1, 0] : truncation === "middle" ? [13, 26] : [20, 19];
  return `${firstPoints(text, head)}${ELLIPSIS}${lastPoints(text, tail)}`;
}

/** Whether `text` has more than `count` code points, reading no further than needed. */
function longerThan(text: string, count: number): boolean {
  return firstPoints(text, count).length < text.length;
}

/** The first `count` code points (a surrogate pair is one). */
function firstPoints(text: string, count: number): string {
  let end = 0;
  for (let n = 0; n < count && end < text.length; n++) end += isPair(text, end) ? 2 : 1;
  return text.slice(0, end);
}

/** The last `count` code points. */
function lastPoints(text: string, count: number): string {
  let start = text.length;
  for (let n = 0; n < count && start > 0; n++) start -= start >= 2 && isPair(text, start - 2) ? 2 : 1;
  return text.slice(start);
}

function isPair(text: string, at: number): boolean {
  const high = text.charCodeAt(at);
  const low = text.charCodeAt(at + 1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}

function trimSlash(path: string): string {
  return path.endsWith("/") ? path.slice(0, -1) : path;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
