/**
 * Whether a value parsed from JSON is an object — not an array, not `null` — so its fields can be
 * read. Every reader of untrusted JSON (gateway frames, agent lines, envelopes, saved state) asks
 * this before anything else.
 */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
