import type { InlineKeyboardMarkup, LinkPreviewOptions, ReactionType } from "grammy/types";
import { badRequest } from "./botApiError.js";
import { messageText } from "./formattedText.js";
import { linkPreviewOptions, replyMarkup, replyParameters, type ReplyMarkup, type ReplyTarget } from "./markupSchemas.js";
import { FieldError, ObjectFields, optionalBoolean, optionalInteger, optionalJson, optionalString, requiredChatId, type ChatRef } from "./paramReaders.js";
import type { Params } from "./requestParams.js";
import { inputRichMessage, type InputRich } from "./richMessages.js";
import type { FormattedText } from "./textBytes.js";

/**
 * Each method's parameters, read and checked as the Bot API documents them, in the order Telegram checks
 * them (so a call with two faults gets the answer Telegram gives first). State checks (does the chat exist,
 * is the message there) come after, in the methods.
 */

/** Every update type an `Update` carries (`allowed_updates` names these). */
export const UPDATE_TYPES = new Set([
  "message", "edited_message", "channel_post", "edited_channel_post", "business_connection", "business_message",
  "edited_business_message", "deleted_business_messages", "guest_message", "stopped_message_generation", "message_reaction",
  "message_reaction_count", "inline_query", "chosen_inline_result", "callback_query", "shipping_query", "pre_checkout_query",
  "purchased_paid_media", "poll", "poll_answer", "my_chat_member", "chat_member", "chat_join_request", "chat_boost",
  "removed_chat_boost", "managed_bot", "subscription",
]);

/** `sendChatAction`'s `action`, as documented. */
export const CHAT_ACTIONS = new Set([
  "typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice", "upload_document",
  "choose_sticker", "find_location", "record_video_note", "upload_video_note",
]);

/** `createForumTopic`'s `icon_color`: one of six documented colours. */
export const TOPIC_ICON_COLORS = new Set([0x6fb9f0, 0xffd67e, 0xcb86db, 0x8eee98, 0xff93b2, 0xfb6f5f]);

/** Telegram's longest long poll, in seconds (a longer `timeout` is cut to it). */
export const LONG_POLL_MAX_SECONDS = 50;

export interface GetUpdatesArgs {
  readonly offset: number;
  readonly limit: number;
  readonly timeoutSeconds: number;
  readonly allowedUpdates: readonly string[] | undefined;
}

/** `limit` and `timeout` out of range are clamped, as Telegram does (1–100, 0–50), not refused. */
export function getUpdatesArgs(params: Params): GetUpdatesArgs {
  return {
    offset: optionalInteger(params, "offset") ?? 0,
    limit: clamp(optionalInteger(params, "limit") ?? 100, 1, 100),
    timeoutSeconds: clamp(optionalInteger(params, "timeout") ?? 0, 0, LONG_POLL_MAX_SECONDS),
    allowedUpdates: allowedUpdates(params),
  };
}

export interface SetWebhookArgs {
  /** Empty: remove the webhook. */
  readonly url: string;
  readonly secretToken: string | undefined;
  readonly maxConnections: number;
  readonly allowedUpdates: readonly string[] | undefined;
  readonly dropPendingUpdates: boolean;
}

/**
 * The URL must be http(s) (Telegram's cloud wants HTTPS; a self-hosted Bot API server, like this fake, takes
 * HTTP too, which is what a test's listener on 127.0.0.1 speaks). `secret_token`: 1–256 of `A-Za-z0-9_-`.
 */
export function setWebhookArgs(params: Params): SetWebhookArgs {
  const url = optionalString(params, "url") ?? "";
  const dropPendingUpdates = optionalBoolean(params, "drop_pending_updates") ?? false;
  if (url === "") return { url, secretToken: undefined, maxConnections: 40, allowedUpdates: allowedUpdates(params), dropPendingUpdates };
  if (!isWebhookUrl(url)) throw badRequest("invalid webhook URL specified");
  const secretToken = optionalString(params, "secret_token");
  if (secretToken !== undefined && secretToken.length > 256) throw badRequest("secret token is too long");
  if (secretToken !== undefined && !/^[A-Za-z0-9_-]*$/.test(secretToken)) throw badRequest("secret token contains unallowed characters");
  return {
    url,
    secretToken,
    maxConnections: clamp(optionalInteger(params, "max_connections") ?? 40, 1, 100),
    allowedUpdates: allowedUpdates(params),
    dropPendingUpdates,
  };
}

export interface SendMessageArgs {
  readonly chat: ChatRef;
  readonly text: FormattedText;
  readonly threadId: number | undefined;
  readonly reply: ReplyTarget | undefined;
  readonly markup: ReplyMarkup | undefined;
  readonly linkPreview: LinkPreviewOptions | undefined;
  readonly disableNotification: boolean;
  readonly protectContent: boolean;
}

export function sendMessageArgs(params: Params): SendMessageArgs {
  const linkPreview = linkPreviewOptions(params);
  const text = messageText(params);
  const markup = replyMarkup(params);
  const reply = replyParameters(params);
  return {
    chat: requiredChatId(params),
    text,
    threadId: positiveOrNone(optionalInteger(params, "message_thread_id")),
    reply,
    markup,
    linkPreview,
    disableNotification: optionalBoolean(params, "disable_notification") ?? false,
    protectContent: optionalBoolean(params, "protect_content") ?? false,
  };
}

export interface SendRichMessageArgs {
  readonly chat: ChatRef;
  readonly rich: InputRich;
  readonly threadId: number | undefined;
  readonly reply: ReplyTarget | undefined;
  readonly markup: ReplyMarkup | undefined;
}

/** `sendRichMessage`: the rich message first (the Bot API server reads it before it looks at the chat), then as `sendMessage`. */
export function sendRichMessageArgs(params: Params): SendRichMessageArgs {
  const rich = inputRichMessage(params);
  const markup = replyMarkup(params);
  const reply = replyParameters(params);
  optionalBoolean(params, "disable_notification");
  optionalBoolean(params, "protect_content");
  return { chat: requiredChatId(params), rich, threadId: positiveOrNone(optionalInteger(params, "message_thread_id")), reply, markup };
}

/** A message a method edits: in a chat, or sent in inline mode (which this fake never sends). */
export type EditTarget = { readonly chat: ChatRef; readonly messageId: number } | { readonly inlineMessageId: string };

export interface EditMessageTextArgs {
  readonly target: EditTarget;
  readonly text: FormattedText;
  readonly markup: InlineKeyboardMarkup | undefined;
  readonly linkPreview: LinkPreviewOptions | undefined;
}

export function editMessageTextArgs(params: Params): EditMessageTextArgs {
  const linkPreview = linkPreviewOptions(params);
  const text = messageText(params);
  return { target: editTarget(params), text, markup: inlineMarkup(params), linkPreview };
}

export function editMessageReplyMarkupArgs(params: Params): { target: EditTarget; markup: InlineKeyboardMarkup | undefined } {
  const markup = inlineMarkup(params);
  return { target: editTarget(params), markup };
}

export function deleteMessageArgs(params: Params): { chat: ChatRef; messageId: number } {
  if (optionalString(params, "chat_id") === undefined) throw badRequest("Chat identifier is not specified");
  const messageId = positiveOrNone(optionalInteger(params, "message_id"));
  if (messageId === undefined) throw badRequest("Message identifier is not specified");
  return { chat: requiredChatId(params), messageId };
}

export interface SetMessageReactionArgs {
  readonly chat: ChatRef;
  readonly messageId: number;
  readonly reaction: readonly ReactionType[];
  readonly isBig: boolean;
}

export function setMessageReactionArgs(params: Params): SetMessageReactionArgs {
  const messageId = positiveOrNone(optionalInteger(params, "message_id")) ?? 0;
  const isBig = optionalBoolean(params, "is_big") ?? false;
  const value = optionalJson(params, "reaction", "reaction types");
  const reaction = value === undefined ? [] : reactionTypes(value);
  return { chat: requiredChatId(params), messageId, reaction, isBig };
}

export function sendChatActionArgs(params: Params): { chat: ChatRef; threadId: number | undefined; action: string } {
  const threadId = positiveOrNone(optionalInteger(params, "message_thread_id"));
  const action = (optionalString(params, "action") ?? "").toLowerCase();
  if (!CHAT_ACTIONS.has(action)) throw badRequest("Wrong parameter action in request");
  return { chat: requiredChatId(params), threadId, action };
}

export function createForumTopicArgs(params: Params): { chat: ChatRef; name: string; iconColor: number; iconCustomEmojiId: string | undefined } {
  const iconColor = optionalInteger(params, "icon_color");
  if (iconColor !== undefined && !TOPIC_ICON_COLORS.has(iconColor)) throw badRequest("Invalid icon color specified");
  return {
    chat: requiredChatId(params),
    name: optionalString(params, "name") ?? "",
    iconColor: iconColor ?? 0x6fb9f0,
    iconCustomEmojiId: optionalString(params, "icon_custom_emoji_id"),
  };
}

export function getFileArgs(params: Params): { fileId: string } {
  const fileId = optionalString(params, "file_id");
  if (fileId === undefined) throw badRequest("file_id not specified");
  return { fileId };
}

export function answerCallbackQueryArgs(params: Params): { id: string; text: string | undefined; showAlert: boolean; url: string | undefined; cacheTime: number } {
  const text = optionalString(params, "text");
  if (text !== undefined && [...text].length > 200) throw badRequest("MESSAGE_TOO_LONG");
  return {
    id: optionalString(params, "callback_query_id") ?? "",
    text,
    showAlert: optionalBoolean(params, "show_alert") ?? false,
    url: optionalString(params, "url"),
    cacheTime: clamp(optionalInteger(params, "cache_time") ?? 0, 0, 30 * 24 * 3600),
  };
}

function editTarget(params: Params): EditTarget {
  const chat = optionalString(params, "chat_id");
  const messageId = positiveOrNone(optionalInteger(params, "message_id"));
  if (chat === undefined && messageId === undefined) {
    const inlineMessageId = optionalString(params, "inline_message_id");
    if (inlineMessageId === undefined) throw badRequest("message identifier is not specified");
    return { inlineMessageId };
  }
  return { chat: requiredChatId(params), messageId: messageId ?? 0 };
}

/** Edits take only an inline keyboard; any other markup is refused. */
function inlineMarkup(params: Params): InlineKeyboardMarkup | undefined {
  const markup = replyMarkup(params);
  if (markup !== undefined && !("inline_keyboard" in markup)) throw badRequest("REPLY_MARKUP_INVALID");
  return markup;
}

function reactionTypes(value: unknown): ReactionType[] {
  if (!Array.isArray(value)) throw badRequest("Expected an Array of ReactionType");
  return value.map((item) => {
    try {
      if (typeof item !== "object" || item === null || Array.isArray(item)) throw new FieldError("expected an Object");
      const fields = new ObjectFields(item as Record<string, unknown>);
      const type = fields.requiredString("type");
      if (type === "emoji") return { type, emoji: fields.requiredString("emoji") } as ReactionType;
      if (type === "custom_emoji") return { type, custom_emoji_id: fields.requiredString("custom_emoji_id") };
      throw new FieldError("invalid reaction type specified");
    } catch (cause) {
      if (cause instanceof FieldError) throw badRequest(`Can't parse ReactionType: ${cause.message}`, { cause });
      throw cause;
    }
  });
}

/**
 * `allowed_updates`: a JSON array of update type names. Telegram ignores a malformed list or an unknown
 * name silently (the bot then keeps its previous types); the fake refuses both, so a typo shows in a test.
 */
function allowedUpdates(params: Params): readonly string[] | undefined {
  const value = optionalJson(params, "allowed_updates", "allowed_updates");
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) throw badRequest("allowed_updates must be an Array of String");
  const unknown = value.find((name) => !UPDATE_TYPES.has(name));
  if (unknown !== undefined) throw badRequest(`allowed_updates names an unknown update type "${unknown}"`);
  return value;
}

function isWebhookUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (parsed.protocol === "https:" || parsed.protocol === "http:") && parsed.hostname !== "";
  } catch {
    return false;
  }
}

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));
export const positiveOrNone = (value: number | undefined): number | undefined => (value === undefined || value <= 0 ? undefined : value);
