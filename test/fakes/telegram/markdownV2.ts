import type { MessageEntity } from "grammy/types";
import { linkEntity, skipOneNewline } from "./legacyMarkdown.js";
import { char, EntityParseError, isSpace, TextBytes, type FormattedText } from "./textBytes.js";

type V2Type = "bold" | "italic" | "underline" | "strikethrough" | "spoiler" | "code" | "pre" | "text_link" | "custom_emoji" | "blockquote";

interface Open {
  readonly type: V2Type;
  readonly language: string;
  readonly offset: number;
  readonly byteOffset: number;
  readonly resultLength: number;
}

const RESERVED = "_*[]()~`>#+-=|{}.!\n";
/** How Telegram names an entity type in "Can't find end of … entity". */
const TYPE_NAME: Record<V2Type, string> = {
  bold: "Bold",
  italic: "Italic",
  underline: "Underline",
  strikethrough: "Strikethrough",
  spoiler: "Spoiler",
  code: "Code",
  pre: "Pre",
  text_link: "TextUrl",
  custom_emoji: "CustomEmoji",
  blockquote: "BlockQuote",
};

const reservedError = (byte: number) =>
  new EntityParseError(`Character '${String.fromCharCode(byte)}' is reserved and must be escaped with the preceding '\\'`);
const unclosed = (open: Open) =>
  new EntityParseError(`Can't find end of ${open.type === "pre" && open.language ? "PreCode" : TYPE_NAME[open.type]} entity at byte offset ${open.byteOffset}`);

/**
 * `parse_mode: "MarkdownV2"` as Telegram reads it: every one of `_*[]()~`>#+-=|{}.!` outside an entity
 * must be escaped, entities nest, `>` starts a block quote at a line's start. Expandable quotes and
 * `tg://time` links are outside what the fake reads.
 */
export function parseMarkdownV2(source: string): FormattedText {
  const text = new TextBytes(source);
  const entities: MessageEntity[] = [];
  const open: Open[] = [];
  let inQuote = false;
  let lineStart = true;
  for (let i = 0; i < text.size; i++) {
    const c = text.at(i);
    const next = text.at(i + 1);
    if (c === char("\\") && next > 0 && next <= 126) {
      i++;
      text.put(next);
      if (next !== 0x0d) lineStart = next === 0x0a;
      continue;
    }
    const top = open.at(-1);
    const reserved = top?.type === "code" || top?.type === "pre" ? "`" : RESERVED;
    if (!reserved.includes(String.fromCharCode(c))) {
      text.copy(i);
      if ((c & 0xc0) !== 0x80 && c !== 0x0d) lineStart = false;
      continue;
    }
    if (!top || !endsEntity(top, c, text, i, inQuote)) {
      const begun = beginEntity(text, i, c, { lineStart, inQuote });
      if (begun.kind === "newline") {
        text.put(0x0a);
        lineStart = true;
        continue;
      }
      if (begun.kind === "skip") continue;
      if (begun.type === "blockquote") inQuote = true;
      open.push({ type: begun.type, language: begun.language, offset: text.utf16, byteOffset: i, resultLength: text.written });
      i = begun.next;
      continue;
    }
    if (c === 0x0a && top.type !== "blockquote") throw unclosed(top);
    let keep = text.utf16 !== top.offset;
    let url = "";
    if (top.type === "underline" || top.type === "spoiler") i++;
    else if (top.type === "pre") i += 2;
    else if (top.type === "text_link" || top.type === "custom_emoji") {
      if (text.at(i + 1) !== char("(")) {
        if (top.type === "custom_emoji") throw new EntityParseError("The entity must contain a tg://emoji or tg://time URL");
        url = text.writtenSince(top.resultLength);
      } else {
        i += 2;
        const urlBegin = i;
        while (i < text.size && text.at(i) !== char(")")) {
          if (text.at(i) === char("\\") && text.at(i + 1) > 0 && text.at(i + 1) <= 126) i++;
          url += String.fromCharCode(text.at(i++));
        }
        if (text.at(i) !== char(")")) throw new EntityParseError(`Can't find end of a URL at byte offset ${urlBegin}`);
        url = Buffer.from(url, "latin1").toString("utf8");
      }
    } else if (top.type === "blockquote") {
      inQuote = false;
      text.put(0x0a);
      lineStart = true;
      keep = true;
    }
    open.pop();
    if (keep) {
      const entity = closedEntity(top, text.utf16 - top.offset, url);
      if (entity) entities.push(entity);
    }
  }
  const quote = open.at(-1);
  if (inQuote && quote?.type === "blockquote") {
    open.pop();
    if (text.utf16 > quote.offset) entities.push({ type: "blockquote", offset: quote.offset, length: text.utf16 - quote.offset });
  }
  const unfinished = open.at(-1);
  if (unfinished) throw unclosed(unfinished);
  return text.result(entities);
}

function endsEntity(top: Open, c: number, text: TextBytes, i: number, inQuote: boolean): boolean {
  const next = text.at(i + 1);
  if (inQuote && c === 0x0a && (i + 1 === text.size || next !== char(">"))) return true;
  switch (top.type) {
    case "bold":
      return c === char("*");
    case "italic":
      return c === char("_") && next !== char("_");
    case "underline":
      return c === char("_") && next === char("_");
    case "code":
      return c === char("`");
    case "pre":
      return c === char("`") && next === char("`") && text.at(i + 2) === char("`");
    case "text_link":
    case "custom_emoji":
      return c === char("]");
    case "strikethrough":
      return c === char("~");
    case "spoiler":
      return c === char("|") && next === char("|");
    case "blockquote":
      return false;
  }
}

type Begun =
  | { readonly kind: "entity"; readonly type: V2Type; readonly language: string; readonly next: number }
  | { readonly kind: "newline" }
  | { readonly kind: "skip" };

function beginEntity(text: TextBytes, i: number, c: number, line: { lineStart: boolean; inQuote: boolean }): Begun {
  const next = text.at(i + 1);
  const entity = (type: V2Type, nextIndex = i, language = ""): Begun => ({ kind: "entity", type, language, next: nextIndex });
  switch (String.fromCharCode(c)) {
    case "_":
      return next === char("_") ? entity("underline", i + 1) : entity("italic");
    case "*":
      return entity("bold");
    case "~":
      return entity("strikethrough");
    case "|":
      if (next === char("|")) return entity("spoiler", i + 1);
      throw reservedError(c);
    case "[":
      return entity("text_link");
    case "!":
      if (next === char("[")) return entity("custom_emoji", i + 1);
      throw reservedError(c);
    case "`": {
      if (next !== char("`") || text.at(i + 2) !== char("`")) return entity("code");
      let j = i + 3;
      let language = "";
      let languageEnd = j;
      while (!isSpace(text.at(languageEnd)) && text.at(languageEnd) !== char("`")) languageEnd++;
      if (j !== languageEnd && languageEnd < text.size && text.at(languageEnd) !== char("`")) {
        language = text.slice(j, languageEnd);
        j = languageEnd;
      }
      return entity("pre", skipOneNewline(text, j) - 1, language);
    }
    case "\n":
      return { kind: "newline" };
    case ">":
      if (!line.lineStart) throw reservedError(c);
      return line.inQuote ? { kind: "skip" } : entity("blockquote");
    default:
      throw reservedError(c);
  }
}

function closedEntity(open: Open, length: number, url: string): MessageEntity | undefined {
  const { offset } = open;
  switch (open.type) {
    case "text_link":
      return linkEntity(url, offset, length);
    case "custom_emoji": {
      const id = /^tg:\/\/emoji\?id=(\d+)$/.exec(url)?.[1];
      if (id !== undefined) return { type: "custom_emoji", offset, length, custom_emoji_id: id };
      if (/^tg:\/\/time\?/.test(url)) return undefined;
      throw new EntityParseError("Invalid tg://emoji or tg://time URL specified");
    }
    case "pre":
      return open.language ? { type: "pre", offset, length, language: open.language } : { type: "pre", offset, length };
    default:
      return { type: open.type, offset, length };
  }
}
