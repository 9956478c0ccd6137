import type { MessageEntity } from "grammy/types";
import { checkedLink, char, EntityParseError, isSpace, linkUserId, TextBytes, type FormattedText } from "./textBytes.js";

const BACKSLASH = char("\\");
const UNDERSCORE = char("_");
const STAR = char("*");
const BACKTICK = char("`");
const OPEN_BRACKET = char("[");
const MARKERS = new Set([UNDERSCORE, STAR, BACKTICK, OPEN_BRACKET]);

/**
 * `parse_mode: "Markdown"` (legacy) as Telegram reads it: `*bold*`, `_italic_`, `` `code` ``, ```` ```pre``` ````
 * and `[text](url)`, no nesting; a marker without its end is refused ("Can't find end of the entity
 * starting at byte offset N"); `\` escapes only the four markers.
 */
export function parseLegacyMarkdown(source: string): FormattedText {
  const text = new TextBytes(source);
  const entities: MessageEntity[] = [];
  for (let i = 0; i < text.size; i++) {
    const c = text.at(i);
    if (c === BACKSLASH && MARKERS.has(text.at(i + 1))) {
      i++;
      text.put(text.at(i));
      continue;
    }
    if (!MARKERS.has(c)) {
      text.copy(i);
      continue;
    }
    const begin = i;
    const end = c === OPEN_BRACKET ? char("]") : c;
    let pre = false;
    let language = "";
    i++;
    if (c === BACKTICK && text.at(i) === BACKTICK && text.at(i + 1) === BACKTICK) {
      i += 2;
      pre = true;
      let languageEnd = i;
      while (!isSpace(text.at(languageEnd)) && text.at(languageEnd) !== BACKTICK) languageEnd++;
      if (i !== languageEnd && languageEnd < text.size && text.at(languageEnd) !== BACKTICK) {
        language = text.slice(i, languageEnd);
        i = languageEnd;
      }
      i = skipOneNewline(text, i);
    }
    const offset = text.utf16;
    while (i < text.size && (text.at(i) !== end || (pre && !(text.at(i + 1) === BACKTICK && text.at(i + 2) === BACKTICK)))) {
      text.copy(i++);
    }
    if (i === text.size) throw new EntityParseError(`Can't find end of the entity starting at byte offset ${begin}`);
    const length = text.utf16 - offset;
    if (length > 0) {
      const entity = markerEntity(c, offset, length, { pre, language });
      if (c === OPEN_BRACKET) {
        let url: string;
        if (text.at(i + 1) !== char("(")) url = text.slice(begin + 1, i);
        else {
          i += 2;
          const urlBegin = i;
          while (i < text.size && text.at(i) !== char(")")) i++;
          url = text.slice(urlBegin, i);
        }
        const link = linkEntity(url, offset, length);
        if (link) entities.push(link);
      } else if (entity) entities.push(entity);
    }
    if (pre) i += 2;
  }
  return text.result(entities);
}

/** After ```` ``` ```` and a language, one line break (CRLF or LFCR counted as one) is not part of the text. */
export function skipOneNewline(text: TextBytes, i: number): number {
  const c = text.at(i);
  if (c !== 0x0a && c !== 0x0d) return i;
  const next = text.at(i + 1);
  return (next === 0x0a || next === 0x0d) && next !== c ? i + 2 : i + 1;
}

function markerEntity(
  marker: number,
  offset: number,
  length: number,
  code: { pre: boolean; language: string },
): MessageEntity | undefined {
  if (marker === UNDERSCORE) return { type: "italic", offset, length };
  if (marker === STAR) return { type: "bold", offset, length };
  if (marker === BACKTICK && !code.pre) return { type: "code", offset, length };
  if (marker === BACKTICK) return code.language ? { type: "pre", offset, length, language: code.language } : { type: "pre", offset, length };
  return undefined;
}

/** A `[text](url)` entity: a mention of a user for `tg://user?id=`, a link for a valid URL, nothing otherwise. */
export function linkEntity(url: string, offset: number, length: number): MessageEntity | undefined {
  const userId = linkUserId(url);
  if (userId !== undefined) return { type: "text_mention", offset, length, user: { id: userId, is_bot: false, first_name: "" } };
  const link = checkedLink(url);
  return link === undefined ? undefined : { type: "text_link", offset, length, url: link };
}
