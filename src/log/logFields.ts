import { untrustedText } from "../../operators/ingress/untrustedText.js";

/** Nested plain objects (`channel: { id, thread_id }`) are cleaned this deep; deeper ones are left to their sources. */
const MAX_DEPTH = 2;
/** Printable ASCII within the bound: the common case, returned without a scan. */
const PLAIN = /^[\x20-\x7e]{0,500}$/;

/**
 * A log line's fields with every string bounded (500 chars, `…(+N chars)`) and cleaned to one line
 * of plain text. The sources clean what they know is untrusted where it enters; this is the
 * backstop for ids logged as they are (an event id, a channel id, a session key built from them),
 * which must stay exact on the wire and so are never cleaned in the event itself. Errors and other
 * class instances pass untouched: their serializers decide what they show.
 */
export function cleanLogFields(fields: Record<string, unknown>): Record<string, unknown> {
  return cleanObject(fields, 0);
}

function cleanObject(fields: Record<string, unknown>, depth: number): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    const cleaned = cleanValue(value, depth);
    if (cleaned !== value) (copy ??= { ...fields })[key] = cleaned;
  }
  return copy ?? fields;
}

function cleanValue(value: unknown, depth: number): unknown {
  if (typeof value === "string") return PLAIN.test(value) ? value : untrustedText(value);
  if (depth >= MAX_DEPTH || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const cleaned = value.map((item) => cleanValue(item, depth + 1));
    return cleaned.some((item, i) => item !== value[i]) ? cleaned : value;
  }
  return Object.getPrototypeOf(value) === Object.prototype ? cleanObject(value as Record<string, unknown>, depth + 1) : value;
}
