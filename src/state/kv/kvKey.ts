/**
 * A NATS KV key for any string. KV keys allow only `[-/_=.a-zA-Z0-9]`; letters, digits, `-`, `_`
 * and `/` stay as they are (so `nats kv ls` stays readable), every other UTF-8 byte becomes `=XX`.
 * `=` is always escaped, so the mapping is injective; the empty string becomes `=`.
 */
export function kvKey(key: string): string {
  if (key === "") return "=";
  let out = "";
  for (const char of key) {
    if (/^[A-Za-z0-9_/-]$/.test(char)) out += char;
    else for (const byte of Buffer.from(char, "utf8")) out += `=${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The string `kvKey` encoded (for reading `nats kv ls` output back); `undefined` for a key `kvKey` never makes. */
export function fromKvKey(encoded: string): string | undefined {
  if (encoded === "=") return "";
  if (!/^(?:[A-Za-z0-9_/-]|=[0-9A-F]{2})+$/.test(encoded)) return undefined;
  try {
    // The unescaped characters include no `%`, so `=XX` → `%XX` is exactly URI encoding.
    return decodeURIComponent(encoded.replaceAll("=", "%"));
  } catch {
    return undefined; // escapes that are not UTF-8
  }
}
