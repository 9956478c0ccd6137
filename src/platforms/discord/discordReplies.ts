import { AllowedMentionsTypes, API, MessageFlags, type APIAllowedMentions } from "@discordjs/core";
import { DiscordAPIError } from "@discordjs/rest";
import type { OutboundAttachment, OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import { splitMessage } from "../../../operators/delivery/text/splitMessage.js";
import type { Logger } from "../../log/logger.js";
import { SendError } from "../../wire/index.js";
import { componentsOf, type ButtonRow } from "./buttonRow.js";
import { DISCORD_MESSAGE_LIMIT } from "./discordCapabilities.js";
import { fileCaption } from "./fileCaption.js";
import { plainPart, plainParts } from "./plainParts.js";
import { isTooLarge, refusalOf, sendErrorOf } from "./sendErrorOf.js";
import { conversationChannel, targetChannels } from "./replyTarget.js";
import { readTapHandle } from "./tapHandle.js";

/** The receipt of a call that leaves no message of its own ("typing…"). */
const DONE: SendReceipt = { messageId: "dc_done" };
/** The receipt of `answer_tap`: the notice is the tapper's alone, no message the broker acts on later. */
const TAP_ANSWERED: SendReceipt = { messageId: "" };
/** Discord's "Unknown Message": the target is not in that channel. */
const UNKNOWN_MESSAGE = 10008;
/** A thread's auto-archive after a day without messages, as upstream opens them. */
export const AUTO_ARCHIVE_MINUTES = 1440;
const PUBLIC_THREAD = 11;

/**
 * Who a reply may ping: people and roles the agent names (upstream keeps `<@id>` so the agent can
 * mention people back), never `@everyone`/`@here` from agent text (upstream allows it; a broker
 * should not let an agent ping a whole server).
 */
const ALLOWED_MENTIONS: APIAllowedMentions = { parse: [AllowedMentionsTypes.User, AllowedMentionsTypes.Role] };
/**
 * Who a plain text may ping: nobody. It quotes what an agent wants to run, `<@id>` and `@everyone`
 * included; the escapes change what Discord shows, and this what it notifies.
 */
const NO_MENTIONS: APIAllowedMentions = { parse: [] };

/**
 * The broker's reply operations as Discord REST calls, each answered as the gateway acks one (a
 * receipt with Discord's message id, or a `SendError`): a message (to the thread, else the
 * channel; `quote_message_id` as a `message_reference`, sent again plainly when Discord refuses the
 * reference), an edit, a delete, a reaction added or removed (the bot's own, Unicode or `name:id`),
 * a thread (`create_topic`: a public thread in the channel, or started from the message in
 * `quote_message_id` when there is one; its id as the message id) and "typing…".
 * `choices` are a row of buttons under a message or an edit (`buttonRow.ts`); `answer_tap` an
 * ephemeral follow-up through the tapped interaction's webhook (`tapHandle.ts`).
 * A message with an `attachment` uploads its bytes with the message (`#postFile`).
 * A `plainText` message (a question's) is shown as written: its Markdown escaped (`escapeMarkdown.ts`),
 * no one pinged; on a send, an edit and a tap's notice.
 * `noteSent` hears where each message went (the port's participation cache).
 */
export class DiscordReplies {
  readonly #api: API;
  readonly #logger: Logger;
  readonly #noteSent: (channelId: string) => void;
  readonly #uploads: API;

  /** `uploads` posts the messages that carry a file: a client whose timeout allows an upload (default `api`). */
  constructor(api: API, logger: Logger, noteSent: (channelId: string) => void = () => undefined, uploads: API = api) {
    this.#api = api;
    this.#logger = logger;
    this.#noteSent = noteSent;
    this.#uploads = uploads;
  }

  /** Carries out one reply operation; `file` is the bytes of `message.attachment`. */
  async send(message: OutboundMessage, file?: Uint8Array): Promise<SendReceipt> {
    const route = routeOf(message);
    try {
      return await this.#carryOut(message, file);
    } catch (err) {
      const error = sendErrorOf(route, err);
      this.#logger.warn({ reason: error.code, route, ...refusalOf(err), ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }) }, "discord refused a reply");
      throw error;
    }
  }

  async #carryOut(message: OutboundMessage, file: Uint8Array | undefined): Promise<SendReceipt> {
    const channel = conversationChannel(message);
    const text = message.content.text;
    switch (message.command) {
      case undefined: {
        if (message.attachment !== undefined) return this.#postFile(channel, message, message.attachment, file);
        const parts = message.plainText === true ? plainParts(text, DISCORD_MESSAGE_LIMIT) : splitMessage(text, DISCORD_MESSAGE_LIMIT);
        return this.#post(channel, parts, mentionsOf(message), message.quote_message_id, componentsOf(message));
      }
      case "edit_message": {
        const target = snowflake(message, message.reply_to);
        const components = componentsOf(message);
        // An edit is one message: a plain text escaped past the limit loses its end (the broker's questions are far shorter).
        const content = message.plainText === true ? plainPart(text, DISCORD_MESSAGE_LIMIT) : text;
        const body = { content, allowed_mentions: mentionsOf(message), ...(components === undefined ? {} : { components }) };
        await this.#onTarget(message, target, (where) => this.#api.channels.editMessage(where, target, body));
        return { messageId: target };
      }
      case "delete_message": {
        const target = snowflake(message, message.reply_to);
        await this.#onTarget(message, target, (where) => this.#api.channels.deleteMessage(where, target));
        return { messageId: target };
      }
      case "add_reaction":
      case "remove_reaction": {
        const target = snowflake(message, message.reply_to);
        const emoji = text.trim();
        if (emoji === "") throw new SendError("rejected", `${message.command}: no emoji`);
        await this.#onTarget(message, target, (where) =>
          message.command === "add_reaction" ? this.#api.channels.addMessageReaction(where, target, emoji) : this.#api.channels.deleteOwnMessageReaction(where, target, emoji),
        );
        return { messageId: target };
      }
      case "create_topic": {
        // For a message (`quote_message_id`: a cron job's post) the thread starts from it, as upstream's.
        const from = message.quote_message_id === undefined ? undefined : snowflake(message, message.quote_message_id);
        const body = { name: text.slice(0, 100), auto_archive_duration: AUTO_ARCHIVE_MINUTES };
        const thread = await this.#api.channels.createThread(message.channel.id, from === undefined ? { ...body, type: PUBLIC_THREAD } : body, from);
        return { messageId: thread.id };
      }
      case "typing":
        await this.#api.channels.showTyping(channel);
        return DONE;
      case "answer_tap":
        return this.#answerTap(message);
      case "notice":
        // Discord shows a message to one person only in answer to an interaction (a tap): not here.
        throw new SendError("unsupported", "notice: Discord has no message only one person sees outside an interaction");
    }
  }

  /** An ephemeral follow-up only the tapper sees; `""`: nothing to send (the tap was acknowledged when it came). */
  async #answerTap(message: OutboundMessage): Promise<SendReceipt> {
    const handle = readTapHandle(message.reply_to);
    // The handle carries a token: the error names no part of it.
    if (handle === undefined) throw new SendError("rejected", "answer_tap: reply_to is not a Discord tap handle");
    const text = message.content.text;
    if (text === "") return TAP_ANSWERED;
    const content = message.plainText === true ? plainPart(text, DISCORD_MESSAGE_LIMIT) : [...text].slice(0, DISCORD_MESSAGE_LIMIT).join("");
    await this.#api.interactions.followUp(handle.applicationId, handle.token, { content, flags: MessageFlags.Ephemeral, allowed_mentions: { parse: [] } });
    return TAP_ANSWERED;
  }

  /**
   * A text over Discord's 2000 characters (the broker splits replies before they come, so only
   * one sent as is, or a plain text its escapes lengthened) goes as several messages: the quote
   * on the first, the buttons on the last, whose id is the receipt's (the message a tap names and
   * the edit that answers it acts on). A failure part-way leaves the parts before it posted, and
   * is answered as that part's failure.
   */
  async #post(channel: string, parts: readonly string[], mentions: APIAllowedMentions, quote: string | undefined, components: readonly ButtonRow[] | undefined): Promise<SendReceipt> {
    let sent: SendReceipt | undefined;
    for (const [index, part] of parts.entries()) {
      const last = index === parts.length - 1;
      const body = { content: part, allowed_mentions: mentions, ...(last && components !== undefined && components.length > 0 ? { components: [...components] } : {}) };
      sent = await this.#postOne(channel, body, index === 0 ? quote : undefined);
    }
    return sent!;
  }

  /**
   * A file: one message with the bytes uploaded as `files[0]` (multipart, `attachments: [{ id: 0,
   * filename }]` in `payload_json`) and the caption as its content, in the conversation's thread and
   * with the quote as a text's first message has them. A caption over one message follows the file
   * as text messages (`fileCaption`), the buttons on the last, whose id is the receipt's, as a long
   * text's. Bytes that did not come, or not `attachment.size` of them, are refused without a call.
   */
  async #postFile(channel: string, message: OutboundMessage, attachment: OutboundAttachment, file: Uint8Array | undefined): Promise<SendReceipt> {
    if (file === undefined || file.byteLength !== attachment.size) throw new SendError("rejected", `send: the bytes of ${JSON.stringify(attachment.filename)} did not come with it`);
    const caption = fileCaption(message.content.text, message.plainText === true, DISCORD_MESSAGE_LIMIT);
    const mentions = mentionsOf(message);
    const components = componentsOf(message);
    const buttonsHere = caption.after.length === 0 && components !== undefined && components.length > 0;
    const body = {
      ...(caption.with === undefined || caption.with === "" ? {} : { content: caption.with }),
      allowed_mentions: mentions,
      attachments: [{ id: 0, filename: attachment.filename }],
      files: [{ name: attachment.filename, data: file, contentType: attachment.mime_type }],
      ...(buttonsHere ? { components: [...components] } : {}),
    };
    const sent = await this.#postOne(channel, body, message.quote_message_id, this.#uploads);
    return caption.after.length === 0 ? sent : this.#post(channel, caption.after, mentions, undefined, components);
  }

  async #postOne(channel: string, base: Parameters<API["channels"]["createMessage"]>[1], quote: string | undefined, api: API = this.#api): Promise<SendReceipt> {
    if (quote !== undefined && quote !== "") {
      try {
        const sent = await api.channels.createMessage(channel, { ...base, message_reference: { message_id: quote, fail_if_not_exists: false } });
        this.#noteSent(channel);
        return { messageId: sent.id };
      } catch (err) {
        // Upstream's rule: a reply Discord refuses (the quoted message elsewhere, gone) goes plainly;
        // a file too large is refused whatever it quotes.
        if (!(err instanceof DiscordAPIError) || err.status >= 500 || err.status === 429 || isTooLarge(err)) throw err;
        this.#logger.warn({ reason: "quote_refused", status: err.status, code: err.code }, "discord refused the quoted reply; sent without the quote");
      }
    }
    const sent = await api.channels.createMessage(channel, base);
    this.#noteSent(channel);
    return { messageId: sent.id };
  }

  /** Runs `call` in the channel the message likely is in, and in the next one when Discord does not know it there. */
  async #onTarget(message: OutboundMessage, target: string, call: (channelId: string) => Promise<unknown>): Promise<void> {
    const channels = targetChannels(message, target);
    for (const [index, where] of channels.entries()) {
      try {
        await call(where);
        return;
      } catch (err) {
        const last = index === channels.length - 1;
        if (last || !(err instanceof DiscordAPIError) || err.code !== UNKNOWN_MESSAGE) throw err;
      }
    }
  }
}

const SNOWFLAKE = /^\d{1,20}$/;

function mentionsOf(message: OutboundMessage): APIAllowedMentions {
  return message.plainText === true ? NO_MENTIONS : ALLOWED_MENTIONS;
}

/** The message a command acts on; refused without a call when it is no Discord message id. */
function snowflake(message: OutboundMessage, id: string): string {
  if (!SNOWFLAKE.test(id)) throw new SendError("rejected", `${message.command ?? "send"}: ${JSON.stringify(id.slice(0, 40))} is not a Discord message id`);
  return id;
}

function routeOf(message: OutboundMessage): string {
  switch (message.command) {
    case undefined:
      return "createMessage";
    case "edit_message":
      return "editMessage";
    case "delete_message":
      return "deleteMessage";
    case "add_reaction":
      return "createReaction";
    case "remove_reaction":
      return "deleteOwnReaction";
    case "create_topic":
      return "startThreadWithoutMessage";
    case "typing":
      return "triggerTypingIndicator";
    case "answer_tap":
      return "createFollowupMessage";
    case "notice":
      return "none";
  }
}
