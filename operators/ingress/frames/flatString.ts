/**
 * `value` copied into one flat string (equal to it, code unit for code unit), for a table that
 * keeps it as a key for minutes. V8 keeps a string built by concatenation — `+`, a template, an
 * `out += char` loop, `JSON.stringify`, Node's `randomUUID()` — as a rope: one 32-byte node per
 * piece, holding the pieces, until something flattens it, and a Map key is never flattened. A
 * `randomUUID()` send id is 14 nodes, ~450 B, where its 36 characters need 56; ten thousand of them
 * made the soak benchmark's heap climb for its first 200 s. `Array.prototype.join` writes its
 * result into one new string.
 */
export function flatString(value: string): string {
  return value.length < 2 ? value : [value.slice(0, 1), value.slice(1)].join("");
}
