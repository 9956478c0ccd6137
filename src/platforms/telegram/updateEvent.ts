import type { Message, Update } from "grammy/types";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { mentionsOf } from "./messageMentions.js";
import { mediaOf, type MediaItem } from "./messageMedia.js";

/** The platform name of every Telegram event: its session keys (`telegram:<chat>:<topic>`) and send subject. */
export const TELEGRAM = "telegram";

/** Why an update starts no turn: it is not a new message, or the message holds nothing to answer. */
export type UpdateSkip = "not_a_message" | "no_content";

/** What one update is to the broker: a message event and its media to fetch, or nothing. */
export type UpdateReading =
  | { readonly kind: "skip"; readonly reason: UpdateSkip }
  | { readonly kind: "message"; readonly event: GatewayEvent; readonly media: readonly MediaItem[] };

/**
 * The event id of an update: the same for every delivery of it (a poll after a restart, a webhook
 * retry), so the turn stream's msg-id (`telegram:<event_id>`) collapses a redelivery of what was
 * already queued.
 */
export function telegramEventId(updateId: number): string {
  return `tg${updateId}`;
}

/**
 * An update as OpenAB's gateway maps a Telegram message (reference §4.2), so a deployment moving
 * from the gateway keeps its session keys: the chat id as a decimal string, `chat.type` verbatim,
 * the forum topic as the thread, the sender's id, username and name, the text (or the caption),
 * its @mentions and the message id. Only `message` updates count (edits, channel posts, button
 * presses are skipped, as upstream answers them); a message with no text and no media it takes
 * (a sticker, a service message) is skipped too. The timestamp is the message's own date, so the
 * event is the same on every delivery.
 */
export function readUpdate(update: Update): UpdateReading {
  const message = update.message;
  if (message === undefined) return { kind: "skip", reason: "not_a_message" };
  const text = message.text ?? message.caption ?? "";
  const media = mediaOf(message);
  if (text.trim() === "" && media.length === 0) return { kind: "skip", reason: "no_content" };
  return { kind: "message", event: messageEvent(telegramEventId(update.update_id), message, text), media };
}

function messageEvent(eventId: string, message: Message, text: string): GatewayEvent {
  const thread = topicOf(message);
  const from = message.from;
  return {
    schema: "openab.gateway.event.v1",
    event_id: eventId,
    timestamp: new Date(message.date * 1000).toISOString(),
    platform: TELEGRAM,
    channel: thread === undefined ? { id: String(message.chat.id), type: message.chat.type } : { id: String(message.chat.id), type: message.chat.type, thread_id: thread },
    sender: {
      id: from === undefined ? "" : String(from.id),
      name: from?.username ?? "unknown",
      display_name: from === undefined ? "Unknown" : [from.first_name, from.last_name].filter((part) => part !== undefined && part !== "").join(" ") || "Unknown",
      is_bot: from?.is_bot ?? false,
    },
    content: { type: "text", text },
    mentions: mentionsOf(message),
    message_id: String(message.message_id),
    proactive: false,
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
