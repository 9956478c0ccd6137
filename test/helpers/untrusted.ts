import { expect } from "vitest";

/** What cleaned text never holds: C0 controls but `\n`/`\t`, DEL, C1, bidi embeddings, overrides and isolates. */
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Every string in a parsed log record, keys included. */
export function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (typeof value === "object" && value !== null) return Object.entries(value).flatMap(([key, item]) => [key, ...stringsOf(item)]);
  return [];
}

/** Asserts every log record, as one JSON line, is shorter than `maxLineChars` and clean; returns the longest line's length. */
export function expectRecordsBoundedClean(records: readonly object[], maxLineChars: number): number {
  expect(records.length).toBeGreaterThan(0);
  const lines = records.map((record) => JSON.stringify(record));
  for (const [index, line] of lines.entries()) {
    const record = records[index] as { msg?: string };
    expect(line.length, `${record.msg}: ${line.slice(0, 200)}`).toBeLessThan(maxLineChars);
    expect(stringsOf(record).filter((text) => CONTROL_CHARS.test(text)), record.msg).toEqual([]);
  }
  return Math.max(...lines.map((line) => line.length));
}
