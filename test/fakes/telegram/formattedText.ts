import type { MessageEntity } from "grammy/types";
import { badRequest } from "./botApiError.js";
import { parseHtml } from "./htmlText.js";
import { parseLegacyMarkdown } from "./legacyMarkdown.js";
import { parseMarkdownV2 } from "./markdownV2.js";
import { FieldError, ObjectFields, optionalJson, optionalString } from "./paramReaders.js";
import type { Params } from "./requestParams.js";
import { EntityParseError, type FormattedText } from "./textBytes.js";

/** Telegram's limit on a text message, in characters (code points) after entity parsing and trimming. */
export const MESSAGE_TEXT_LIMIT = 4096;
/** Telegram's limit on a media caption, in characters after entity parsing and trimming. */
export const CAPTION_LIMIT = 1024;
/** The most bytes of `text` the Bot API server reads before parsing at all. */
const TEXT_BYTES_LIMIT = 1 << 15;

const ENTITY_TYPES = new Set([
  "mention", "hashtag", "cashtag", "bot_command", "url", "email", "phone_number", "bold", "italic", "underline",
  "strikethrough", "spoiler", "blockquote", "expandable_blockquote", "code", "pre", "text_link", "text_mention", "custom_emoji",
]);

/**
 * A message's text from `text`, `parse_mode` and `entities` as Telegram reads them: empty refused, parsed by
 * its parse mode (a parse error refused as "can't parse entities: …"), trimmed, then 1–4096 characters.
 */
export function messageText(params: Params, names = { text: "text", parseMode: "parse_mode", entities: "entities" }): FormattedText {
  const source = optionalString(params, names.text);
  if (source === undefined) throw badRequest("Message text is empty");
  if (Buffer.byteLength(source) > TEXT_BYTES_LIMIT) throw badRequest("Text is too long");
  const parsed = formatted(source, (optionalString(params, names.parseMode) ?? "").toLowerCase(), params, names.entities);
  const trimmed = trim(parsed);
  if (trimmed.text === "") throw badRequest("Text must be non-empty");
  if ([...trimmed.text].length > MESSAGE_TEXT_LIMIT) throw badRequest("Message is too long");
  return trimmed;
}

/**
 * A media message's caption from `caption`, `parse_mode` and `caption_entities`, read as a text is
 * (parse errors refused alike) but optional: absent or empty is no caption; over 1024 characters
 * once parsed and trimmed is refused ("message caption is too long").
 */
export function captionText(params: Params): FormattedText {
  const source = optionalString(params, "caption") ?? "";
  if (Buffer.byteLength(source) > TEXT_BYTES_LIMIT) throw badRequest("Message caption is too long");
  const caption = trim(formatted(source, (optionalString(params, "parse_mode") ?? "").toLowerCase(), params, "caption_entities"));
  if ([...caption.text].length > CAPTION_LIMIT) throw badRequest("Message caption is too long");
  return caption;
}

function formatted(source: string, parseMode: string, params: Params, entitiesName: string): FormattedText {
  const parse = { markdown: parseLegacyMarkdown, markdownv2: parseMarkdownV2, html: parseHtml }[parseMode];
  if (parse) {
    try {
      return parse(source);
    } catch (cause) {
      if (cause instanceof EntityParseError) throw badRequest(`Can't parse entities: ${cause.message}`, { cause });
      throw cause;
    }
  }
  if (parseMode !== "" && parseMode !== "none") throw badRequest("Unsupported parse_mode");
  return { text: source, entities: explicitEntities(optionalJson(params, entitiesName, "message entities")) };
}

function explicitEntities(value: unknown): MessageEntity[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return [];
  return value.map((item) => {
    try {
      const fields = ObjectFields.of(item, "MessageEntity");
      const type = fields.requiredString("type");
      if (!ENTITY_TYPES.has(type)) throw new FieldError(`Unsupported type specified`);
      const entity = { ...(item as object), type, offset: fields.requiredInteger("offset"), length: fields.requiredInteger("length") };
      if (entity.offset < 0 || entity.length < 0) throw new FieldError("Receive an entity with incorrect offset");
      return entity as MessageEntity;
    } catch (cause) {
      if (cause instanceof FieldError) throw badRequest(`Can't parse MessageEntity: ${cause.message}`, { cause });
      throw cause;
    }
  });
}

/** Leading and trailing white space removed, entities moved with the text and cut to it. */
function trim({ text, entities }: FormattedText): FormattedText {
  const lead = text.length - text.trimStart().length;
  const kept = text.trim();
  const moved = entities.flatMap((entity) => {
    const start = Math.max(0, entity.offset - lead);
    const end = Math.min(kept.length, entity.offset + entity.length - lead);
    return end > start ? [{ ...entity, offset: start, length: end - start }] : [];
  });
  return { text: kept, entities: moved };
}
