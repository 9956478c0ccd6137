import type { MessageEntity } from "grammy/types";

/**
 * Text the parse modes read byte by byte, as Telegram's parsers do: their errors name UTF-8 byte offsets
 * ("at byte offset 37") while the entities they produce count UTF-16 code units.
 */
export class TextBytes {
  readonly bytes: Buffer;
  private readonly out: number[] = [];
  /** UTF-16 code units written so far: the next entity's offset. */
  utf16 = 0;

  constructor(source: string) {
    this.bytes = Buffer.from(source, "utf8");
  }

  get size(): number {
    return this.bytes.length;
  }

  /** The byte at `index`, 0 past the end (Telegram's parsers read the string's terminating NUL there). */
  at(index: number): number {
    return index < this.bytes.length ? this.bytes[index]! : 0;
  }

  /** Copies the byte at `index` to the result, counting UTF-16 units at each character's first byte. */
  copy(index: number): void {
    const byte = this.bytes[index]!;
    if ((byte & 0xc0) !== 0x80) this.utf16 += byte >= 0xf0 ? 2 : 1;
    this.out.push(byte);
  }

  /** Writes one ASCII byte that stands for itself (an escaped marker). */
  put(byte: number): void {
    this.utf16 += 1;
    this.out.push(byte);
  }

  /** Writes a decoded character (an HTML character reference). */
  putCodePoint(code: number): void {
    this.utf16 += code > 0xffff ? 2 : 1;
    this.out.push(...Buffer.from(String.fromCodePoint(code), "utf8"));
  }

  /** The bytes between two indexes of the source, as text (a link's URL). */
  slice(from: number, to: number): string {
    return this.bytes.subarray(from, to).toString("utf8");
  }

  /** The result written since `resultLength` (a link's text used as its URL). */
  writtenSince(resultLength: number): string {
    return Buffer.from(this.out.slice(resultLength)).toString("utf8");
  }

  get written(): number {
    return this.out.length;
  }

  result(entities: MessageEntity[]): FormattedText {
    return { text: Buffer.from(this.out).toString("utf8"), entities: entities.sort(byPosition) };
  }
}

/** Text with its entities, as a message carries them. */
export interface FormattedText {
  readonly text: string;
  readonly entities: readonly MessageEntity[];
}

/** A parse mode's refusal; `formattedText` words it "can't parse entities: …". */
export class EntityParseError extends Error {
  override readonly name = "EntityParseError";
}

export const char = (symbol: string): number => symbol.charCodeAt(0);

export function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0x0b || byte === 0;
}

function byPosition(a: MessageEntity, b: MessageEntity): number {
  return a.offset - b.offset || b.length - a.length;
}

/**
 * A link target as Telegram keeps it: http(s), tg:// and ftp URLs, or a bare domain (given `http://`).
 * Anything else makes no entity (the text stays, unlinked).
 */
export function checkedLink(url: string): string | undefined {
  const trimmed = url.trim();
  if (/^(https?|ftp|tg|ton):\/\/\S+$/i.test(trimmed)) return trimmed;
  if (/^[\w-]+(\.[\w-]+)*\.[a-z]{2,}(:\d+)?([/?#]\S*)?$/i.test(trimmed)) return `http://${trimmed}`;
  return undefined;
}

/** `tg://user?id=123`: a link to a user, which becomes a `text_mention`. */
export function linkUserId(url: string): number | undefined {
  const match = /^tg:\/\/user\?id=(\d+)$/i.exec(url.trim());
  return match ? Number(match[1]) : undefined;
}
