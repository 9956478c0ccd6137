import { UNTRUSTED_TEXT_MIN_CHARS, untrustedText } from "../untrustedText.js";

export interface UntrustedJsonOptions {
  /** Characters of string content (values and keys) kept in all; default 1,000. */
  readonly maxChars?: number;
  /** Nesting kept; deeper values become `"…"`. Default 3. */
  readonly maxDepth?: number;
  /** Entries (array items and object keys) kept in all; default 32. */
  readonly maxEntries?: number;
}

/** Stands for whatever was left out: deeper nesting, more entries, or strings past the budget. */
export const OMITTED = "…";

/**
 * A parsed JSON value from the agent (a JSON-RPC error's `data`) cut to a small, clean copy for a
 * log line: every string and key cleaned as `untrustedText` does (a string keeps `\n`, a key is
 * one line), strings sharing one character budget, nesting and entries capped. Numbers, booleans
 * and `null` are kept; anything else (not JSON) becomes `"…"`. The work is bounded by the budgets.
 */
export function untrustedJson(value: unknown, options: UntrustedJsonOptions = {}): unknown {
  const budget = { chars: options.maxChars ?? 1_000, entries: options.maxEntries ?? 32 };
  const maxDepth = options.maxDepth ?? 3;

  const text = (raw: string, multiline: boolean): string => {
    if (budget.chars < UNTRUSTED_TEXT_MIN_CHARS) return OMITTED;
    const clean = untrustedText(raw, { maxChars: Math.min(budget.chars, 500), multiline });
    budget.chars -= clean.length;
    return clean;
  };

  const copy = (node: unknown, depth: number): unknown => {
    if (node === null || typeof node === "number" || typeof node === "boolean") return node;
    if (typeof node === "string") return text(node, true);
    if (typeof node !== "object" || depth >= maxDepth) return OMITTED;
    if (Array.isArray(node)) {
      const items: unknown[] = [];
      for (const item of node) {
        if (budget.entries <= 0) {
          items.push(OMITTED);
          break;
        }
        budget.entries--;
        items.push(copy(item, depth + 1));
      }
      return items;
    }
    // Entries, not assignments: a `__proto__` key from JSON.parse stays a plain key.
    const entries: [string, unknown][] = [];
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      if (budget.entries <= 0) {
        entries.push([OMITTED, OMITTED]);
        break;
      }
      budget.entries--;
      entries.push([text(key, false), copy((node as Record<string, unknown>)[key], depth + 1)]);
    }
    return Object.fromEntries(entries);
  };

  return copy(value, 0);
}
