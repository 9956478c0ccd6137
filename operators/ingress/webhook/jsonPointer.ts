/**
 * RFC 6901 JSON Pointers: `""` is the whole document, `/a/0/b~1c` steps into `a`, its item 0 and
 * the key `b/c`. Parsed once (a webhook's config), resolved per delivery; both are linear in their
 * input, and resolving never builds anything.
 */

/** A parsed pointer: its reference tokens, unescaped (`~1` → `/`, `~0` → `~`). */
export type JsonPointer = readonly string[];

/** A pointer that is not RFC 6901's: `reason` says what, for a config problem. */
export class JsonPointerError extends Error {
  override readonly name = "JsonPointerError";
  constructor(
    readonly text: string,
    readonly reason: string,
  ) {
    super(`${JSON.stringify(text)} is not a JSON pointer (${reason})`);
  }
}

/** The tokens of `text`; throws `JsonPointerError` for one that does not start with `/` (unless empty) or has a `~` not followed by 0 or 1. */
export function parseJsonPointer(text: string): JsonPointer {
  if (text === "") return [];
  if (!text.startsWith("/")) throw new JsonPointerError(text, 'it starts with "/", or is "" for the whole body');
  const bad = /~(?![01])/.exec(text);
  if (bad !== null) throw new JsonPointerError(text, '"~" is followed by 0 or 1: "~0" is "~", "~1" is "/"');
  return text
    .slice(1)
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** What a pointer finds: the value, or nothing (a missing key, an index out of range, a step into a scalar). */
export type Resolved = { readonly found: true; readonly value: unknown } | { readonly found: false };

const NOT_FOUND: Resolved = { found: false };
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** The value `pointer` refers to in a parsed JSON `document`; own keys only, array indexes as RFC 6901 writes them (no `-`, no leading zeros). */
export function resolveJsonPointer(pointer: JsonPointer, document: unknown): Resolved {
  let current = document;
  for (const token of pointer) {
    if (Array.isArray(current)) {
      if (!ARRAY_INDEX.test(token)) return NOT_FOUND;
      const index = Number(token);
      if (index >= current.length) return NOT_FOUND;
      current = current[index] as unknown;
    } else if (typeof current === "object" && current !== null) {
      if (!Object.hasOwn(current, token)) return NOT_FOUND;
      current = (current as Record<string, unknown>)[token];
    } else {
      return NOT_FOUND;
    }
  }
  return { found: true, value: current };
}
