import { redactUrlsIn } from "../secrets/redactUrl.js";

const MAX_CHARS = 60;

/** What kind of TOML value this is, in the words an operator reading an error expects. */
export function valueKind(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "float";
  if (typeof value === "bigint") return "integer";
  if (value instanceof Date) return "datetime";
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return "table";
  return typeof value;
}

/**
 * A value printed JSON-style (strings quoted), cut to about 60 characters so one problem stays one
 * line, with the credentials of any URL in it masked (before the cut, so no half of one shows).
 */
export function printValue(value: unknown): string {
  const text = redactUrlsIn(rawText(value));
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS - 1)}…` : text;
}

function rawText(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  try {
    // smol-toml's TomlDate prints local dates and times without inventing a zone.
    if (value instanceof Date) return value.toISOString();
    return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === "bigint" ? inner.toString() : inner)) ?? String(value);
  } catch {
    return String(value);
  }
}
