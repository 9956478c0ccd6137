/**
 * A tool call's safe one-line preview, as mono-agent builds it (`../shared/reference/peers.md`
 * §11.2): at most one scalar argument, normalised, credentials redacted before it is cut to 40
 * code points. Every step is linear and runs on at most 4,096 code points, so a 1 MB argument
 * costs no more than a short one.
 */

/** Where the agent works: a path under `workspaceRoot` shows relative, one under `home` as `~/…`. */
export interface PreviewPlaces {
  readonly workspaceRoot?: string;
  readonly home?: string;
}

/** How a preview longer than 40 code points is cut. */
export type Truncation = "head" | "middle" | "balanced";

const MAX_SCAN = 4096;
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

/** A scalar as a preview: normalised, redacted, then cut to 40 code points. */
export function previewText(raw: string, truncation: Truncation, places: PreviewPlaces = {}): string {
  return truncate(redactSecrets(normalise(raw, places)), truncation);
}

/** Control and format characters become spaces, whitespace collapses, the workspace root and home shorten. */
export function normalise(raw: string, places: PreviewPlaces = {}): string {
  let text = codePoints(raw, MAX_SCAN)
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  const { workspaceRoot, home } = places;
  if (workspaceRoot !== undefined && workspaceRoot.length > 1) text = text.split(`${trimSlash(workspaceRoot)}/`).join("");
  if (home !== undefined && home.length > 1) text = text.split(`${trimSlash(home)}/`).join("~/");
  return text;
}

const SENSITIVE_PARAMS = "api_key|access_token|refresh_token|auth_token|client_secret|password|passwd|secret|signature|x-amz-signature|ticket|token";
const SENSITIVE_KEY = String.raw`authorization|cookie|[\w-]*api[-_ ]?key|[\w-]*token|password|passwd|[\w-]*secret|private[-_ ]?key|credentials?|session[-_ ]?id`;

/** mono-agent's redactions, in its order; each pattern matches in linear time. */
const REDACTIONS: readonly { readonly pattern: RegExp; readonly replace: string }[] = [
  // URL user info: https://user:pass@host → https://host.
  { pattern: /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, replace: "$1" },
  // Sensitive query parameters.
  { pattern: new RegExp(String.raw`([?&](?:${SENSITIVE_PARAMS})=)[^&\s#'"]*`, "gi"), replace: "$1[redacted]" },
  // Sensitive flags: --token x, --password=x.
  { pattern: /(--[\w-]*(?:token|password|passwd|secret|api[-_]?key|credential)[\w-]*)(?:=|\s+)(?!-)\S+/gi, replace: "$1 [redacted]" },
  // curl -u user:pass, --user user:pass.
  { pattern: /((?:^|\s)(?:-u|--user)(?:=|\s+))[^\s:]+:\S+/g, replace: "$1[redacted]" },
  // key: value and key=value for credentials.
  { pattern: new RegExp(String.raw`\b(${SENSITIVE_KEY})\s*[:=]\s*(?:(?:Bearer|Basic)\s+)?\S+`, "gi"), replace: "$1=[redacted]" },
  // Bearer / Basic credentials anywhere else.
  { pattern: /\b(Bearer|Basic)\s+(?!\[redacted\])\S+/g, replace: "$1 [redacted]" },
  // Known secret shapes.
  { pattern: /\bsk-[A-Za-z0-9_-]{8,}/g, replace: "[redacted]" },
  { pattern: /\bgh[oprsu]_[A-Za-z0-9]{20,}/g, replace: "[redacted]" },
  { pattern: /\bxox[baprs]-[A-Za-z0-9-]{8,}/g, replace: "[redacted]" },
  { pattern: /\bAKIA[0-9A-Z]{16}\b/g, replace: "[redacted]" },
  { pattern: /\b\d{6,}:[A-Za-z0-9_-]{20,}/g, replace: "[redacted]" },
  { pattern: /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]+)?/g, replace: "[redacted]" },
];

/** Credentials and tokens in a command or argument replaced by `[redacted]`. */
export function redactSecrets(text: string): string {
  let out = text;
  // mysql / mariadb take a password glued to -p (or after it): -psecret → -p[redacted].
  if (/\b(?:mysql|mariadb)\b/i.test(out)) out = out.replace(/(\s-p)(?:\s+(?!-)\S+|(?!\s)\S+)/g, (_match, flag: string) => `${flag}[redacted]`);
  for (const { pattern, replace } of REDACTIONS) out = out.replace(pattern, replace);
  return out;
}

/** At most 40 code points: `head` 39 + `…`; `middle` 13 + `…` + 26 (paths); `balanced` 20 + `…` + 19 (commands). */
export function truncate(text: string, truncation: Truncation): string {
  const points = Array.from(text);
  if (points.length <= MAX_PREVIEW) return text;
  const [head, tail] = truncation === "head" ? [MAX_PREVIEW - 1, 0] : truncation === "middle" ? [13, 26] : [20, 19];
  return `${points.slice(0, head).join("")}${ELLIPSIS}${tail === 0 ? "" : points.slice(-tail).join("")}`;
}

function codePoints(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text.slice(0, max * 2)).slice(0, max).join("");
}

function trimSlash(path: string): string {
  return path.endsWith("/") ? path.slice(0, -1) : path;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
