/**
 * A key made of parts joined with `:`. Inside each part `%` is written `%25` and `:` `%3A`, so no
 * part can hold a separator and, for a fixed number of parts, two different lists of parts never
 * make the same key. Everything else stays as it is: plain ids read as themselves
 * (`telegram:chat-1:T1`), and unicode is kept.
 */
export function compositeKey(parts: readonly string[]): string {
  // A loop and a test before the replace: keys are built several times per event (edge, lane, logs).
  let key = "";
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    key += (i === 0 ? "" : ":") + (escaped.test(part) ? escapePart(part) : part);
  }
  return key;
}

const escaped = /[%:]/;

/**
 * The parts `compositeKey` joined into `key`, when it has `arity` of them; `undefined` for a string
 * `compositeKey` never makes with that many parts (another count, or an escape it does not write).
 */
export function compositeKeyParts(key: string, arity: number): string[] | undefined {
  const parts = key.split(":");
  if (parts.length !== arity || !parts.every((part) => canonicalPart.test(part))) return undefined;
  return parts.map(unescapePart);
}

const canonicalPart = /^(?:[^%]|%25|%3A)*$/;

function escapePart(part: string): string {
  return part.replace(/[%:]/g, (char) => (char === "%" ? "%25" : "%3A"));
}

function unescapePart(part: string): string {
  return part.replace(/%25|%3A/g, (escape) => (escape === "%25" ? "%" : ":"));
}
