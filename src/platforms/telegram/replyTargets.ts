import type { OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import { SendError } from "../../wire/index.js";

// Where a reply goes on Telegram and by which Bot API method: the chat, the forum topic and the
// message a command acts on, read from the broker's OutboundMessage; refused without a call when a
// value is no Telegram id.

/** A chat id as Telegram takes it: a number for a numeric id, else the text (`@channelname`). */
export function chatIdOf(id: string): number | string {
  return /^-?\d+$/.test(id) && Number.isSafeInteger(Number(id)) ? Number(id) : id;
}

/** A Telegram id (a message, a topic) as a positive safe integer; undefined for any other text. */
export function positiveId(text: string): number | undefined {
  const id = Number(text);
  return /^\d+$/.test(text) && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** The message a command acts on (`reply_to`); refused without a call when it is no Telegram message id. */
export function targetOf(message: OutboundMessage): number {
  const id = positiveId(message.reply_to);
  if (id === undefined) throw new SendError("rejected", `${message.command ?? "send"}: ${JSON.stringify(message.reply_to.slice(0, 40))} is not a Telegram message id`);
  return id;
}

/**
 * The forum topic a message or chat action goes to; refused without a call when `thread_id` is no
 * topic id (a cron job's typo): Telegram would read it as absent and post in the chat's main thread.
 */
export function threadOf(message: OutboundMessage): { message_thread_id?: number } {
  const thread = message.channel.thread_id;
  if (thread === undefined) return {};
  const id = positiveId(thread);
  if (id === undefined) throw new SendError("rejected", `${message.command ?? "send"}: ${JSON.stringify(thread.slice(0, 40))} is not a Telegram topic id`);
  return { message_thread_id: id };
}

/** The Bot API method that carries out a reply operation (`none`: the platform has no such thing). */
export function methodOf(message: OutboundMessage): string {
  switch (message.command) {
    case undefined:
      return "sendMessage";
    case "edit_message":
      return "editMessageText";
    case "delete_message":
      return "deleteMessage";
    case "add_reaction":
    case "remove_reaction":
      return "setMessageReaction";
    case "create_topic":
      return "createForumTopic";
    case "typing":
      return "sendChatAction";
    case "answer_tap":
      return "answerCallbackQuery";
    case "notice":
      return "none";
  }
}
