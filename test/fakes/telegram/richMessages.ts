import type { RichBlock } from "grammy/types";
import { badRequest } from "./botApiError.js";
import { FieldError, ObjectFields, optionalJson } from "./paramReaders.js";
import type { Params } from "./requestParams.js";

/** Telegram's limit on a rich message's text, in characters ("Up to 32768 UTF-8 characters"). */
export const RICH_MESSAGE_TEXT_LIMIT = 32_768;

/** `InputRichMessage`'s fields; any other is refused (Telegram would ignore it). */
const FIELDS = new Set(["blocks", "html", "markdown", "media", "is_rtl", "skip_entity_detection"]);

/**
 * A rich message as sent: its source (Markdown or HTML text, or blocks) and direction. The fake does
 * not render Markdown or HTML into blocks: it keeps the text as sent, for a test to read back.
 */
export type InputRich = { readonly text: string; readonly blocks?: undefined; readonly isRtl: boolean } | { readonly text?: undefined; readonly blocks: readonly RichBlock[]; readonly isRtl: boolean };

/**
 * `rich_message`, read as the Bot API server reads it and refused in its words ("rich message must be
 * non-empty", "can't parse rich message JSON object", "object expected as rich message",
 * `RICH_MESSAGE_TEXT_TOO_LONG`). Exactly one of `html`, `markdown` and `blocks`, as documented: Telegram
 * takes the first it finds, the fake refuses two. `media` is read as a list and otherwise ignored.
 */
export function inputRichMessage(params: Params): InputRich {
  const value = optionalJson(params, "rich_message", "rich message");
  if (value === undefined) throw badRequest("Rich message must be non-empty");
  const fields = ObjectFields.of(value, "rich message");
  try {
    const unknown = Object.keys(value as object).find((name) => !FIELDS.has(name));
    if (unknown !== undefined) throw new FieldError(`unknown field "${unknown}"`);
    const sources = ["html", "markdown", "blocks"].filter((name) => fields.has(name));
    if (sources.length > 1) throw new FieldError(`exactly one of html, markdown and blocks must be specified, not ${sources.join(" and ")}`);
    const isRtl = fields.boolean("is_rtl") ?? false;
    fields.boolean("skip_entity_detection");
    if (fields.has("media") && !Array.isArray(fields.raw("media"))) throw new FieldError('Field "media" must be an Array');
    if (sources[0] === "blocks") {
      const blocks = fields.raw("blocks");
      if (!Array.isArray(blocks)) throw new FieldError('Field "blocks" must be an Array');
      if (blocks.length === 0) throw badRequest("Rich message must be non-empty");
      return { blocks: blocks as RichBlock[], isRtl };
    }
    const text = sources[0] === undefined ? "" : fields.string(sources[0])!;
    if (text.trim() === "") throw badRequest("Rich message must be non-empty");
    if ([...text].length > RICH_MESSAGE_TEXT_LIMIT) throw badRequest("RICH_MESSAGE_TEXT_TOO_LONG");
    return { text, isRtl };
  } catch (cause) {
    if (cause instanceof FieldError) throw badRequest(`Can't parse InputRichMessage: ${cause.message}`, { cause });
    throw cause;
  }
}
