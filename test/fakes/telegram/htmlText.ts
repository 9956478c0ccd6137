import type { MessageEntity } from "grammy/types";
import { linkEntity } from "./legacyMarkdown.js";
import { char, EntityParseError, isSpace, TextBytes, type FormattedText } from "./textBytes.js";

const TAGS = new Set(["a", "b", "strong", "i", "em", "s", "strike", "del", "u", "ins", "tg-spoiler", "tg-emoji", "tg-time", "span", "pre", "code", "blockquote"]);
const NAMED: Record<string, number> = { lt: 0x3c, gt: 0x3e, amp: 0x26, quot: 0x22 };

interface OpenTag {
  readonly name: string;
  readonly argument: string;
  readonly offset: number;
  readonly resultLength: number;
}

/**
 * `parse_mode: "HTML"` as Telegram reads it: the tags it documents (others refused), attributes it knows
 * (others ignored), `&lt;` `&gt;` `&amp;` `&quot;` and numeric references; every tag closed in order.
 */
export function parseHtml(source: string): FormattedText {
  const text = new TextBytes(source);
  const entities: MessageEntity[] = [];
  const open: OpenTag[] = [];
  for (let i = 0; i < text.size; i++) {
    const c = text.at(i);
    if (c === char("&")) {
      const decoded = htmlEntity(text, i);
      if (decoded) {
        text.putCodePoint(decoded.code);
        i = decoded.end - 1;
        continue;
      }
    }
    if (c !== char("<")) {
      text.copy(i);
      continue;
    }
    const begin = i++;
    if (text.at(i) !== char("/")) {
      const tag = startTag(text, begin);
      open.push({ name: tag.name, argument: tag.argument, offset: text.utf16, resultLength: text.written });
      i = tag.end;
      continue;
    }
    if (open.length === 0) throw new EntityParseError(`Unexpected end tag at byte offset ${begin}`);
    while (!isSpace(text.at(i)) && text.at(i) !== char(">")) i++;
    const endName = text.slice(begin + 2, i).toLowerCase();
    while (isSpace(text.at(i)) && text.at(i) !== 0) i++;
    if (text.at(i) !== char(">")) throw new EntityParseError(`Unclosed end tag at byte offset ${begin}`);
    const top = open.pop()!;
    if (endName !== "" && endName !== top.name) {
      throw new EntityParseError(`Unmatched end tag at byte offset ${begin}, expected "</${top.name}>", found "</${endName}>"`);
    }
    const length = text.utf16 - top.offset;
    if (length > 0) closeTag(top, length, text, entities);
  }
  const unclosed = open.at(-1);
  if (unclosed) throw new EntityParseError(`Can't find end tag corresponding to start tag "${unclosed.name}"`);
  // A code tag's language was kept only for a <pre> around it.
  return text.result(entities.map((entity) => (entity.type === "code" ? { type: "code", offset: entity.offset, length: entity.length } : entity)));
}

function startTag(text: TextBytes, begin: number): { name: string; argument: string; end: number } {
  let i = begin + 1;
  while (!isSpace(text.at(i)) && text.at(i) !== char(">")) i++;
  if (i >= text.size) throw new EntityParseError(`Unclosed start tag at byte offset ${begin}`);
  const name = text.slice(begin + 1, i).toLowerCase();
  if (!TAGS.has(name)) throw new EntityParseError(`Unsupported start tag "${name}" at byte offset ${begin}`);
  let argument = "";
  while (text.at(i) !== char(">")) {
    while (isSpace(text.at(i)) && i < text.size) i++;
    if (i >= text.size) throw new EntityParseError(`Unclosed start tag "${name}" at byte offset ${begin}`);
    if (text.at(i) === char(">")) break;
    const nameBegin = i;
    while (!isSpace(text.at(i)) && text.at(i) !== char("=") && text.at(i) !== char(">") && text.at(i) !== char("/") && i < text.size) i++;
    const attribute = text.slice(nameBegin, i).toLowerCase();
    if (attribute === "") throw new EntityParseError(`Empty attribute name in the tag "${name}" at byte offset ${begin}`);
    while (isSpace(text.at(i)) && i < text.size) i++;
    let value = "";
    if (text.at(i) === char("=")) {
      i++;
      while (isSpace(text.at(i)) && i < text.size) i++;
      const quote = text.at(i);
      if (quote === char('"') || quote === char("'")) {
        const valueBegin = ++i;
        while (i < text.size && text.at(i) !== quote) i++;
        if (i >= text.size) throw new EntityParseError(`Unclosed start tag at byte offset ${begin}`);
        value = decodeAttribute(text.slice(valueBegin, i++));
      } else {
        const valueBegin = i;
        while (!isSpace(text.at(i)) && text.at(i) !== char(">") && i < text.size) i++;
        value = text.slice(valueBegin, i);
      }
    } else if (text.at(i) === char("/")) i++;
    argument = tagArgument(name, attribute, value, argument);
  }
  if (name === "span" && argument !== "spoiler") throw new EntityParseError(`Tag "span" must have class "tg-spoiler" at byte offset ${begin}`);
  return { name, argument, end: i };
}

function tagArgument(tag: string, attribute: string, value: string, current: string): string {
  if (tag === "a" && attribute === "href") return value;
  if (tag === "code" && attribute === "class" && value.startsWith("language-")) return value.slice("language-".length);
  if (tag === "span" && attribute === "class" && value.startsWith("tg-")) return value.slice(3);
  if (tag === "tg-emoji" && attribute === "emoji-id") return value;
  if (tag === "blockquote" && attribute === "expandable") return "1";
  return current;
}

function closeTag(tag: OpenTag, length: number, text: TextBytes, entities: MessageEntity[]): void {
  const { offset } = tag;
  const simple: Record<string, MessageEntity["type"]> = {
    i: "italic", em: "italic", b: "bold", strong: "bold", s: "strikethrough", strike: "strikethrough", del: "strikethrough",
    u: "underline", ins: "underline", "tg-spoiler": "spoiler", span: "spoiler",
  };
  const type = simple[tag.name];
  if (type) entities.push({ type, offset, length } as MessageEntity);
  else if (tag.name === "tg-emoji") {
    if (!/^[1-9]\d*$/.test(tag.argument)) throw new EntityParseError("Invalid custom emoji identifier specified");
    entities.push({ type: "custom_emoji", offset, length, custom_emoji_id: tag.argument });
  } else if (tag.name === "a") {
    const link = linkEntity(tag.argument || text.writtenSince(tag.resultLength), offset, length);
    if (link) entities.push(link);
  } else if (tag.name === "blockquote") {
    entities.push({ type: tag.argument ? "expandable_blockquote" : "blockquote", offset, length } as MessageEntity);
  } else if (tag.name === "pre" || tag.name === "code") {
    const last = entities.at(-1);
    const sameSpan = last !== undefined && last.offset === offset && last.length === length;
    if (tag.name === "pre" && sameSpan && last.type === "code" && "language" in last) {
      entities[entities.length - 1] = { type: "pre", offset, length, language: (last as { language: string }).language };
    } else if (tag.name === "code" && sameSpan && last.type === "pre" && tag.argument) {
      entities[entities.length - 1] = { type: "pre", offset, length, language: tag.argument };
    } else if (tag.name === "code" && tag.argument) {
      // A code tag's language counts only inside <pre>; kept until the pre closes around it.
      entities.push({ type: "code", offset, length, language: tag.argument } as MessageEntity);
    } else entities.push({ type: tag.name, offset, length });
  }
  // tg-time: a formatted date is outside what the fake reads; the text stays, without an entity.
}

/** `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&#NN;`, `&#xHH;`; any other `&` is kept as it is. */
function htmlEntity(text: TextBytes, at: number): { code: number; end: number } | undefined {
  const rest = text.slice(at, Math.min(text.size, at + 12));
  const match = /^&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]+));/i.exec(rest);
  if (!match) return undefined;
  const code = match[1] ? Number(match[1]) : match[2] ? parseInt(match[2], 16) : NAMED[match[3]!];
  if (code === undefined || code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return undefined;
  return { code, end: at + Buffer.byteLength(match[0]) };
}

function decodeAttribute(value: string): string {
  return value.replace(/&(lt|gt|amp|quot);/g, (_, name: string) => String.fromCharCode(NAMED[name]!));
}
