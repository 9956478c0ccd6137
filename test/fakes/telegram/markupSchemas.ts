import type { ForceReply, InlineKeyboardButton, InlineKeyboardMarkup, LinkPreviewOptions, ReplyKeyboardMarkup, ReplyKeyboardRemove } from "grammy/types";
import { badRequest } from "./botApiError.js";
import { FieldError, ObjectFields, optionalBoolean, optionalInteger, optionalJson, type ChatRef } from "./paramReaders.js";
import type { Params } from "./requestParams.js";
import { checkedLink } from "./textBytes.js";

export type ReplyMarkup = InlineKeyboardMarkup | ReplyKeyboardMarkup | ReplyKeyboardRemove | ForceReply;

/** Where a message replies: a message of this chat, or of `chatId`'s. */
export interface ReplyTarget {
  readonly messageId: number;
  readonly chatId?: ChatRef;
  readonly allowSendingWithoutReply: boolean;
}

const BUTTON_KINDS = [
  "url", "callback_data", "callback_game", "pay", "switch_inline_query", "switch_inline_query_current_chat",
  "switch_inline_query_chosen_chat", "login_url", "web_app", "copy_text",
] as const;
const BUTTON_STYLES = new Set(["", "default", "primary", "danger", "success"]);

/** `reply_markup`: an inline keyboard, a reply keyboard, its removal or a forced reply; `{}` is none, as Telegram reads it. */
export function replyMarkup(params: Params): ReplyMarkup | undefined {
  const value = optionalJson(params, "reply_markup", "reply keyboard markup");
  if (value === undefined) return undefined;
  const fields = ObjectFields.of(value, "reply markup");
  const inline = fields.raw("inline_keyboard");
  if (inline !== undefined) {
    const rows = keyboardRows(inline, 'Field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays');
    const keyboard = rows.map((row) => row.map((button) => wrapped("Can't parse inline keyboard button", () => inlineButton(button))));
    if (keyboard.some((row) => row.length > 0)) return { inline_keyboard: keyboard };
  }
  const reply = fields.raw("keyboard");
  if (reply !== undefined) {
    const rows = keyboardRows(reply, 'Field "keyboard" must be an Array of Arrays');
    const keyboard = rows.map((row) => row.map((button) => wrapped("Can't parse keyboard button", () => keyboardButton(button))));
    if (keyboard.some((row) => row.length > 0)) return { ...(value as object), keyboard } as ReplyKeyboardMarkup;
  }
  if (wrapped("", () => fields.boolean("remove_keyboard"))) return { remove_keyboard: true, selective: fields.boolean("selective") ?? false };
  if (wrapped("", () => fields.boolean("force_reply"))) return { force_reply: true, selective: fields.boolean("selective") ?? false };
  return undefined;
}

/** `reply_parameters` (or the older `reply_to_message_id`): the message a new one replies to. */
export function replyParameters(params: Params): ReplyTarget | undefined {
  if (params.reply_parameters === undefined) {
    const messageId = optionalInteger(params, "reply_to_message_id");
    return messageId === undefined || messageId <= 0
      ? undefined
      : { messageId, allowSendingWithoutReply: optionalBoolean(params, "allow_sending_without_reply") ?? false };
  }
  const value = optionalJson(params, "reply_parameters", "reply parameters");
  if (value === undefined) return undefined;
  const fields = ObjectFields.of(value, "reply parameters");
  if (Object.keys(value as object).length === 0) return undefined;
  return wrapped("", () => {
    const chatId = fields.string("chat_id");
    const target: ReplyTarget = {
      messageId: Math.max(fields.requiredInteger("message_id"), 0),
      allowSendingWithoutReply: fields.boolean("allow_sending_without_reply") ?? false,
    };
    fields.string("quote");
    fields.integer("quote_position");
    if (chatId === undefined) return target;
    const ref: ChatRef = chatId.startsWith("@") ? (chatId as `@${string}`) : /^-?\d+$/.test(chatId) ? Number(chatId) : 0;
    return { ...target, chatId: ref };
  });
}

/** `link_preview_options`, its five documented fields typed. */
export function linkPreviewOptions(params: Params): LinkPreviewOptions | undefined {
  const value = optionalJson(params, "link_preview_options", "link preview options");
  if (value === undefined) return undefined;
  const fields = ObjectFields.of(value, "link preview options");
  return wrapped("", () => {
    const options: Record<string, unknown> = {};
    for (const flag of ["is_disabled", "prefer_small_media", "prefer_large_media", "show_above_text"]) {
      const set = fields.boolean(flag);
      if (set !== undefined) options[flag] = set;
    }
    const url = fields.string("url");
    if (url !== undefined) options.url = url;
    return options as LinkPreviewOptions;
  });
}

function keyboardRows(value: unknown, message: string): unknown[][] {
  if (!Array.isArray(value) || !value.every(Array.isArray)) throw badRequest(message);
  return value as unknown[][];
}

function inlineButton(button: unknown): InlineKeyboardButton {
  if (typeof button !== "object" || button === null || Array.isArray(button)) throw new FieldError("InlineKeyboardButton must be an Object");
  const fields = new ObjectFields(button as Record<string, unknown>);
  fields.requiredString("text");
  if (!BUTTON_STYLES.has((fields.string("style") ?? "").toLowerCase())) throw new FieldError("invalid button style specified");
  const kind = BUTTON_KINDS.find((name) => (name === "url" || name === "callback_data" ? (fields.string(name) ?? "") !== "" : fields.has(name)));
  if (kind === undefined) throw new FieldError("Text buttons are unallowed in the inline keyboard");
  if (kind === "url" && checkedLink(fields.string("url")!) === undefined) throw new CodeError("BUTTON_URL_INVALID");
  if (kind === "callback_data" && Buffer.byteLength(fields.string("callback_data")!) > 64) throw new CodeError("BUTTON_DATA_INVALID");
  return button as InlineKeyboardButton;
}

function keyboardButton(button: unknown): unknown {
  if (typeof button === "string") return button;
  if (typeof button !== "object" || button === null || Array.isArray(button)) throw new FieldError("KeyboardButton must be a String or an Object");
  new ObjectFields(button as Record<string, unknown>).requiredString("text");
  return button;
}

/** An error Telegram's servers answer with a bare code (`BUTTON_DATA_INVALID`), not wrapped in what was read. */
class CodeError extends Error {
  override readonly name = "CodeError";
}

/** Runs a read of nested fields, wording a bad field as Telegram does: "<what>: <field problem>". */
function wrapped<T>(what: string, read: () => T): T {
  try {
    return read();
  } catch (cause) {
    if (cause instanceof CodeError) throw badRequest(cause.message, { cause });
    if (cause instanceof FieldError) throw badRequest(what ? `${what}: ${cause.message}` : cause.message, { cause });
    throw cause;
  }
}
