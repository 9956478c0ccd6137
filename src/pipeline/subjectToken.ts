import { createHash } from "node:crypto";

/**
 * Wire strings (a platform name, an event id) as one NATS subject token, or as a header value:
 * letters, digits, `-` and `_` stay as they are, every other UTF-8 byte becomes `%XX`, a lone
 * UTF-16 surrogate (JSON can carry one) `%%XXXX`, and the empty string `%`. So the token never
 * holds `.`, `*`, `>`, whitespace, NUL or CR/LF, and the mapping is injective: `fromSubjectToken`
 * reads it back.
 *
 * A subject travels in the protocol's control line, which nats-server caps (4 KB by default) and
 * answers past the cap by closing the connection — for every turn on it. An encoding longer than
 * `maxTokenLength` is therefore cut and made unique with a hash of the whole value after a `~`,
 * a character the short form never holds.
 */
export function subjectToken(value: string): string {
  const encoded = encodeToken(value);
  if (encoded.length <= maxTokenLength) return encoded;
  // The hash is of the (injective) encoding, not of the UTF-8, which merges lone surrogates.
  return `${encoded.slice(0, keptOfLongToken)}~${createHash("sha256").update(encoded).digest("base64url")}`;
}

/** The longest token `subjectToken` makes without hashing. */
export const maxTokenLength = 128;
/** How much of a long token's encoding stays readable before its hash. */
const keptOfLongToken = 64;

/** The string `subjectToken` encoded; `undefined` for a hashed (long) token or one it never makes. */
export function fromSubjectToken(token: string): string | undefined {
  if (token === "%") return "";
  if (!/^(?:[A-Za-z0-9_-]|%[0-9A-F]{2}|%%[0-9A-F]{4})+$/.test(token)) return undefined;
  let out = "";
  let bytes: number[] = [];
  const flush = (): void => {
    out += Buffer.from(bytes).toString("utf8");
    bytes = [];
  };
  for (let i = 0; i < token.length; ) {
    if (token.startsWith("%%", i)) {
      flush();
      out += String.fromCharCode(Number.parseInt(token.slice(i + 2, i + 6), 16));
      i += 6;
    } else if (token[i] === "%") {
      bytes.push(Number.parseInt(token.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      flush();
      out += token[i];
      i += 1;
    }
  }
  flush();
  // Bytes that are not UTF-8, or a `%%` that is no surrogate, do not encode back: not made here.
  return subjectToken(out) === token ? out : undefined;
}

function encodeToken(value: string): string {
  if (value === "") return "%";
  let out = "";
  for (const char of value) {
    if (/^[A-Za-z0-9_-]$/.test(char)) out += char;
    else if (isLoneSurrogate(char)) out += `%%${hex(char.charCodeAt(0), 4)}`;
    else for (const byte of Buffer.from(char, "utf8")) out += `%${hex(byte, 2)}`;
  }
  return out;
}

/** `for…of` yields a lone surrogate as a one-unit string; a pair comes as two units. */
function isLoneSurrogate(char: string): boolean {
  const unit = char.charCodeAt(0);
  return char.length === 1 && unit >= 0xd800 && unit <= 0xdfff;
}

function hex(n: number, width: number): string {
  return n.toString(16).toUpperCase().padStart(width, "0");
}
