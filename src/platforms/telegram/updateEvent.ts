import type { CallbackQuery, Chat, Message, Update, User } from "grammy/types";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { mentionsOf } from "./messageMentions.js";
import { mediaOf, type MediaItem } from "./messageMedia.js";

/** The platform name of every Telegram event: its session keys (`telegram:<chat>:<topic>`) and send subject. */
export const TELEGRAM = "telegram";

/** The longest `callback_data` Telegram lets a button carry, in bytes: a tap's data is bounded by it. */
export const TAP_DATA_MAX_BYTES = 64;
/** The longest callback query id read: Telegram's are about 19 digits; anything longer is forged. */
const TAP_ID_MAX_LENGTH = 64;

/**
 * Why an update makes no event: it is neither a new message nor a button tap, the message holds
 * nothing to answer, or the tap is none of ours to read — no `data` (a game's button), data over
 * 64 bytes (no Telegram button carries that), no message (a button under an inline-mode message,
 * which names no chat), a message too old to be shown to the bot (its topic unknown, so its
 * conversation is too) — or the update is not shaped as Telegram documents one.
 */
export type UpdateSkip = "not_a_message" | "no_content" | "tap_no_data" | "tap_data_too_long" | "tap_no_message" | "tap_message_inaccessible" | "malformed";

/** What one update is to the broker: a message event and its media to fetch, a tap event, or nothing. */
export type UpdateReading =
  | { readonly kind: "skip"; readonly reason: UpdateSkip }
  | { readonly kind: "event"; readonly event: GatewayEvent; readonly media: readonly MediaItem[] };

/**
 * The event id of an update: the same for every delivery of it (a poll after a restart, a webhook
 * retry), so the turn stream's msg-id (`telegram:<event_id>`) collapses a redelivery of what was
 * already queued.
 */
export function telegramEventId(updateId: number): string {
  return `tg${updateId}`;
}

/** The event id of a tap: the callback query's id, the same on every delivery of its update. */
export function telegramTapEventId(callbackQueryId: string): string {
  return `tap:${callbackQueryId}`;
}

/**
 * An update as OpenAB's gateway maps a Telegram message (reference §4.2), so a deployment moving
 * from the gateway keeps its session keys: the chat id as a decimal string, `chat.type` verbatim,
 * the forum topic as the thread, the sender's id, username and name, the text (or the caption),
 * its @mentions and the message id. `message` updates count, and `callback_query` ones (a tap on a
 * button of the bot's, `tapEvent`); edits, channel posts and the rest are skipped, as upstream
 * answers them. A message with no text and no media it takes (a sticker, a service message) is
 * skipped too. The timestamp is the message's own date, so the event is the same on every
 * delivery; a tap, which carries no date, is stamped `receivedAt`.
 */
export function readUpdate(update: Update, receivedAt: Date = new Date()): UpdateReading {
  if (update.callback_query !== undefined) return tapEvent(update.callback_query, receivedAt);
  const message = update.message;
  if (message === undefined) return { kind: "skip", reason: "not_a_message" };
  const text = message.text ?? message.caption ?? "";
  const media = mediaOf(message);
  if (text.trim() === "" && media.length === 0) return { kind: "skip", reason: "no_content" };
  return { kind: "event", event: messageEvent(telegramEventId(update.update_id), message, text), media };
}

function messageEvent(eventId: string, message: Message, text: string): GatewayEvent {
  return {
    schema: "openab.gateway.event.v1",
    event_id: eventId,
    timestamp: new Date(message.date * 1000).toISOString(),
    platform: TELEGRAM,
    channel: channelOf(message.chat, topicOf(message)),
    sender: senderOf(message.from),
    content: { type: "text", text },
    mentions: mentionsOf(message),
    message_id: String(message.message_id),
    proactive: false,
  };
}

/**
 * A tap on a button of the bot's message: who tapped (`from`, as a message's sender), where (the
 * message's chat and forum topic, exactly as a message posted there is keyed, so the tap reaches
 * that conversation's session), on which message, and the button's data — untrusted, bounded to
 * Telegram's 64 bytes. Its event id is the query's own (`tap:<id>`), unique per tap.
 */
function tapEvent(query: CallbackQuery, receivedAt: Date): UpdateReading {
  const { id, from, message, data } = query as Partial<CallbackQuery>;
  if (typeof id !== "string" || id === "" || id.length > TAP_ID_MAX_LENGTH || typeof from?.id !== "number") return { kind: "skip", reason: "malformed" };
  if (typeof data !== "string" || data === "") return { kind: "skip", reason: "tap_no_data" };
  if (Buffer.byteLength(data, "utf8") > TAP_DATA_MAX_BYTES) return { kind: "skip", reason: "tap_data_too_long" };
  if (message === undefined) return { kind: "skip", reason: "tap_no_message" };
  // An inaccessible message (`date` 0, over 48 hours old) still names its chat but not its topic.
  if (message.date === 0) return { kind: "skip", reason: "tap_message_inaccessible" };
  const shown = message as Message;
  const event: GatewayEvent = {
    schema: "openab.gateway.event.v1",
    event_id: telegramTapEventId(id),
    timestamp: receivedAt.toISOString(),
    platform: TELEGRAM,
    channel: channelOf(shown.chat, topicOf(shown)),
    sender: senderOf(from),
    content: { type: "text", text: "" },
    mentions: [],
    message_id: String(shown.message_id),
    proactive: false,
    tap: { id, data },
  };
  return { kind: "event", event, media: [] };
}

function channelOf(chat: Chat, thread: string | undefined): GatewayEvent["channel"] {
  return thread === undefined ? { id: String(chat.id), type: chat.type } : { id: String(chat.id), type: chat.type, thread_id: thread };
}

function senderOf(from: User | undefined): GatewayEvent["sender"] {
  return {
    id: from === undefined ? "" : String(from.id),
    name: from?.username ?? "unknown",
    display_name: from === undefined ? "Unknown" : [from.first_name, from.last_name].filter((part) => part !== undefined && part !== "").join(" ") || "Unknown",
    is_bot: from?.is_bot ?? false,
  };
}

/**
 * The forum topic a message belongs to. A reply in a supergroup that is not a forum carries a
 * `message_thread_id` too (its reply thread), which is no topic: a reply there cannot be sent to
 * it, and it must not pass the group's @mention gate as a topic does. So only a topic message's id
 * counts (`is_topic_message`), where OpenAB's gateway takes any.
 */
function topicOf(message: Message): string | undefined {
  return message.is_topic_message === true && message.message_thread_id !== undefined ? String(message.message_thread_id) : undefined;
}
