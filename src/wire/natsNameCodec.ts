import { createHash } from "node:crypto";

/** How one kind of NATS name (a subject token, a KV key) spells any string. */
export interface NatsNameSpelling {
  /** The characters that stand for themselves; every other one is escaped. */
  readonly plain: RegExp;
  /** Escape mark: `mark` + two hex digits per UTF-8 byte, two marks + four for a lone surrogate. */
  readonly mark: string;
  /** Longest name made without hashing. */
  readonly maxLength: number;
  /** How much of a long encoding stays readable before `separator` and its hash. */
  readonly kept: number;
  /** Never in a short encoding, so a hashed name cannot equal one. */
  readonly separator: string;
}

export interface NatsNameCodec {
  /** Injective: two strings never share a name (the empty one is `mark` alone). */
  encode(value: string): string;
  /** The string `encode` made this name from; `undefined` for a hashed name or one `encode` never makes. */
  decode(name: string): string | undefined;
}

/**
 * One codec for NATS names: wire strings become names that hold no separator, wildcard, whitespace
 * or control character. A name past `maxLength` is cut and made unique with a SHA-256 of the whole
 * encoding (of the encoding, not of the UTF-8, which would merge lone surrogates): nats-server
 * answers a subject past its control-line cap (4 KB) by closing the connection.
 */
export function natsNameCodec(spelling: NatsNameSpelling): NatsNameCodec {
  const { mark, maxLength, kept, separator } = spelling;
  const plainChar = new RegExp(`^${spelling.plain.source}$`);
  const plainRun = new RegExp(`^${spelling.plain.source}+$`);
  const m = escapeRegExp(mark);
  const wellFormed = new RegExp(`^(?:${spelling.plain.source}|${m}[0-9A-F]{2}|${m}${m}[0-9A-F]{4})+$`);

  const notPlain = new RegExp(`(?!${spelling.plain.source})[\\s\\S]`, "g");
  const asciiEscape = (char: string): string => `${mark}${hex(char.charCodeAt(0), 2)}`;

  const spell = (value: string): string => {
    if (value === "") return mark;
    if (plainRun.test(value)) return value; // the common case: nothing to escape
    // ASCII (a ledger key's `:`): one UTF-8 byte per character, so one replace does it; it runs per event.
    if (ascii.test(value)) return value.replace(notPlain, asciiEscape);
    const parts: string[] = [];
    for (const char of value) {
      if (plainChar.test(char)) parts.push(char);
      else if (isLoneSurrogate(char)) parts.push(`${mark}${mark}${hex(char.charCodeAt(0), 4)}`);
      else for (const byte of Buffer.from(char, "utf8")) parts.push(`${mark}${hex(byte, 2)}`);
    }
    return parts.join("");
  };

  const encode = (value: string): string => {
    const encoded = spell(value);
    if (encoded.length <= maxLength) return encoded;
    return `${encoded.slice(0, kept)}${separator}${createHash("sha256").update(encoded).digest("base64url")}`;
  };

  const decode = (name: string): string | undefined => {
    if (name === mark) return "";
    if (!wellFormed.test(name)) return undefined;
    const parts: string[] = [];
    let bytes: number[] = [];
    const flush = (): void => {
      if (bytes.length > 0) parts.push(Buffer.from(bytes).toString("utf8"));
      bytes = [];
    };
    for (let i = 0; i < name.length; ) {
      if (name.startsWith(mark + mark, i)) {
        flush();
        parts.push(String.fromCharCode(Number.parseInt(name.slice(i + 2 * mark.length, i + 2 * mark.length + 4), 16)));
        i += 2 * mark.length + 4;
      } else if (name.startsWith(mark, i)) {
        bytes.push(Number.parseInt(name.slice(i + mark.length, i + mark.length + 2), 16));
        i += mark.length + 2;
      } else {
        flush();
        parts.push(name[i] as string);
        i += 1;
      }
    }
    flush();
    const value = parts.join("");
    // Bytes that are not UTF-8, or a double mark that is no surrogate, do not encode back: not made here.
    return encode(value) === name ? value : undefined;
  };

  return { encode, decode };
}

const ascii = /^[\x00-\x7f]*$/;

/** `for…of` yields a lone surrogate as a one-unit string; a pair comes as two units. */
function isLoneSurrogate(char: string): boolean {
  const unit = char.charCodeAt(0);
  return char.length === 1 && unit >= 0xd800 && unit <= 0xdfff;
}

function hex(n: number, width: number): string {
  return n.toString(16).toUpperCase().padStart(width, "0");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
