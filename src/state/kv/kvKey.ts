import { createHash } from "node:crypto";

/**
 * A NATS KV key for any string. KV keys allow only `[-/_=.a-zA-Z0-9]`; letters, digits, `-`, `_`
 * and `/` stay as they are (so `nats kv ls` stays readable), every other UTF-8 byte becomes `=XX`,
 * a lone UTF-16 surrogate (JSON can carry one) `==XXXX`. `=` is always escaped, so the mapping is
 * injective; the empty string becomes `=`.
 *
 * The key is a subject token of the bucket's stream, and a subject past nats-server's control-line
 * cap (4 KB) closes the connection: an encoding longer than `maxKvKeyLength` keeps its start and
 * ends in `.` and a hash of the whole encoding (`.` never appears in the short form).
 */
export function kvKey(key: string): string {
  const encoded = encodeKey(key);
  if (encoded.length <= maxKvKeyLength) return encoded;
  return `${encoded.slice(0, keptOfLongKey)}.${createHash("sha256").update(encoded).digest("base64url")}`;
}

/** The longest key `kvKey` makes without hashing. */
export const maxKvKeyLength = 256;
const keptOfLongKey = 128;

/** The string `kvKey` encoded (for reading `nats kv ls` output back); `undefined` for a hashed key or one `kvKey` never makes. */
export function fromKvKey(encoded: string): string | undefined {
  if (encoded === "=") return "";
  if (!/^(?:[A-Za-z0-9_/-]|=[0-9A-F]{2}|==[0-9A-F]{4})+$/.test(encoded)) return undefined;
  let out = "";
  let bytes: number[] = [];
  const flush = (): void => {
    out += Buffer.from(bytes).toString("utf8");
    bytes = [];
  };
  for (let i = 0; i < encoded.length; ) {
    if (encoded.startsWith("==", i)) {
      flush();
      out += String.fromCharCode(Number.parseInt(encoded.slice(i + 2, i + 6), 16));
      i += 6;
    } else if (encoded[i] === "=") {
      bytes.push(Number.parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      flush();
      out += encoded[i];
      i += 1;
    }
  }
  flush();
  // Bytes that are not UTF-8, or a `==` that is no surrogate, do not encode back: not made here.
  return kvKey(out) === encoded ? out : undefined;
}

function encodeKey(key: string): string {
  if (key === "") return "=";
  let out = "";
  for (const char of key) {
    const unit = char.charCodeAt(0);
    if (/^[A-Za-z0-9_/-]$/.test(char)) out += char;
    else if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) out += `==${hex(unit, 4)}`; // a lone surrogate
    else for (const byte of Buffer.from(char, "utf8")) out += `=${hex(byte, 2)}`;
  }
  return out;
}

function hex(n: number, width: number): string {
  return n.toString(16).toUpperCase().padStart(width, "0");
}
