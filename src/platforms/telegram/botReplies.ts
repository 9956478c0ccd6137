import type { Api } from "grammy";
import type { InlineKeyboardMarkup, ReactionTypeEmoji } from "grammy/types";
import type { OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import type { Logger } from "../../log/logger.js";
import { SendError, SKIPPED_MESSAGE_ID } from "../../wire/index.js";
import { botApiFailure, isNotModified } from "./botApiFailure.js";
import { FileReplies } from "./fileReplies.js";
import { grammySignal, type GrammySignal } from "./grammySignal.js";
import { hasButtons, inlineKeyboardOf } from "./inlineKeyboard.js";
import { readsAsLegacyMarkdown } from "./legacyMarkdown.js";
import { chatIdOf, methodOf, positiveId, targetOf, threadOf } from "./replyTargets.js";
import { isMarkdownParseError } from "./markdownParseError.js";
import { MessageKeyboards } from "./messageKeyboards.js";
import { MessageReactions, reactionCall } from "./messageReactions.js";
import { isMoodFace, telegramReaction } from "./reactionEmoji.js";
import { fallsBackToPlain } from "./richFallback.js";
import { isComplexMarkdown } from "./richText.js";
import { sendErrorOf } from "./sendErrorOf.js";
import { tapNotice } from "./tapNotice.js";

/**
 * How long one reply may take, all its calls together (a rich message, then legacy Markdown, then
 * plain text): under the worker's wait for the answer, so an answer always comes.
 */
export const REPLY_CALL_TIMEOUT_MS = 10_000;
/**
 * How long a reply with a file may take, its upload and any retry together: 50 MB, Telegram's
 * limit, takes a slow uplink well over `REPLY_CALL_TIMEOUT_MS`. The worker's wait for the answer
 * of a send with a file has to allow for it.
 */
export const FILE_REPLY_TIMEOUT_MS = 60_000;

export interface BotRepliesOptions {
  /** `[telegram] rich_messages`: a message with a heading or a table goes as a rich message. */
  readonly richMessages?: boolean;
  /** How long one reply may take (default `REPLY_CALL_TIMEOUT_MS`). */
  readonly timeoutMs?: number | undefined;
  /** How long one reply with a file may take (default `FILE_REPLY_TIMEOUT_MS`). */
  readonly fileTimeoutMs?: number | undefined;
}

/** The receipt of a call that leaves no message of its own (a chat action). */
const DONE: SendReceipt = { messageId: "tg_done" };

/**
 * The broker's reply operations as Bot API calls, each answered as the gateway acks one (a receipt
 * with Telegram's message id, or a `SendError`): a message (`sendMessage`, quoting with
 * `reply_parameters`), an edit (`editMessageText`; "message is not modified" is success), a delete,
 * a reaction (`setMessageReaction`: the bot's one reaction, from the emoji Telegram takes), a forum
 * topic (`createForumTopic`, its thread id as the message id; for a message, `quote_message_id`, `""`:
 * no thread, the chat), "typing…" (`sendChatAction`) and the answer to a tap on a button
 * (`answerCallbackQuery`, its notice cut to 200 characters; the receipt's message id `""`).
 * Text goes as legacy Markdown, and again as plain text when Telegram cannot parse it (OpenAB's
 * rule). With `richMessages`, a message whose Markdown has a heading or a table goes as a rich
 * message (`sendRichMessage`), and as legacy Markdown when Telegram refuses that (upstream's newer
 * gateway); edits stay `editMessageText`. A message's `choices` are an inline keyboard on
 * `sendMessage` (never rich: the edit that takes the buttons away once answered needs a text
 * message) and on `editMessageText`, where `choices: []` sends an empty one, which removes the
 * buttons, and no `choices` sends back the buttons this edge put there (`MessageKeyboards`).
 * A `plainText` message (a question's, quoting the command an agent wants to run) goes, and is
 * edited, without `parse_mode` and never rich: Telegram shows its `*`, `_` and backticks as written.
 * A message with an `attachment` is an upload (`FileReplies`: `sendPhoto` or `sendDocument`, its
 * text the caption), into the same topic and quoting the same message as a text would.
 */
export class BotReplies {
  readonly #api: Api;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  readonly #fileTimeoutMs: number;
  readonly #richMessages: boolean;
  readonly #files: FileReplies;
  readonly #reactions = new MessageReactions();
  readonly #keyboards = new MessageKeyboards();
  /** Emoji already noted as having no Telegram reaction: noted once each. */
  readonly #unmapped = new Set<string>();

  constructor(api: Api, logger: Logger, options: BotRepliesOptions = {}) {
    this.#api = api;
    this.#logger = logger;
    this.#timeoutMs = options.timeoutMs ?? REPLY_CALL_TIMEOUT_MS;
    this.#fileTimeoutMs = options.fileTimeoutMs ?? FILE_REPLY_TIMEOUT_MS;
    this.#richMessages = options.richMessages ?? false;
    this.#files = new FileReplies(api, logger, (method, err) => this.#sendError(method, err));
  }

  /** Carries out `message`; `file` holds the bytes of its `attachment`. */
  async send(message: OutboundMessage, file?: Uint8Array): Promise<SendReceipt> {
    try {
      return await this.#carryOut(message, file);
    } catch (err) {
      throw this.#sendError(methodOf(message), err);
    }
  }

  /** A failed call as the gateway's ack would name it, logged. */
  #sendError(method: string, err: unknown): SendError {
    if (err instanceof SendError) return err;
    const failure = botApiFailure(err);
    const error = sendErrorOf(method, failure, err);
    this.#logger.warn({ reason: error.code, method, ...(failure.kind === "refused" ? { status: failure.status } : { code: failure.code }) }, "telegram refused a reply");
    return error;
  }

  #carryOut(message: OutboundMessage, file?: Uint8Array): Promise<SendReceipt> {
    const chat = chatIdOf(message.channel.id);
    const text = message.content.text;
    const uploads = message.command === undefined && message.attachment !== undefined;
    const deadline = AbortSignal.timeout(uploads ? this.#fileTimeoutMs : this.#timeoutMs);
    const signal = () => grammySignal(deadline);
    switch (message.command) {
      case undefined: {
        const thread = threadOf(message);
        const quote = message.quote_message_id === undefined ? undefined : positiveId(message.quote_message_id);
        const placed = { ...thread, ...(quote === undefined ? {} : { reply_parameters: { message_id: quote, allow_sending_without_reply: true } }) };
        if (message.attachment !== undefined) {
          // The edge reads a file's bytes from the bus's file store; a send without them is a bug there.
          if (file === undefined) throw new SendError("file_missing", `send: the bytes of ${JSON.stringify(message.attachment.filename)} were not handed to the port`);
          return this.#files.send(message, message.attachment, file, {
            chat,
            where: placed,
            signal,
            formatted: (call) => this.#formatted(message, call),
            captionApart: (fileMessageId) => this.send(captionMessage(message, fileMessageId)),
          });
        }
        const keyboard = message.choices === undefined || message.choices.length === 0 ? undefined : inlineKeyboardOf(message.choices);
        const where = { ...placed, ...(keyboard === undefined ? {} : { reply_markup: keyboard }) };
        const sent = (receipt: SendReceipt): SendReceipt => {
          if (keyboard !== undefined) this.#keyboards.set(`${message.channel.id}:${receipt.messageId}`, keyboard);
          return receipt;
        };
        const plain = () => this.#formatted(message, (markdown) => this.#api.sendMessage(chat, text, { ...where, ...markdown }, signal())).then(receiptOf).then(sent);
        // Upstream also sends a text over 4096 characters rich; the broker splits replies at
        // Telegram's 4096 before they reach the port, so that never arises here. A message with
        // buttons is never rich: its buttons are taken away by `editMessageText` once answered,
        // which edits a text message, not a rich one. A plain-text one neither: its Markdown is not to be read.
        if (!this.#richMessages || message.plainText === true || keyboard !== undefined || !isComplexMarkdown(text)) return plain();
        return this.#api.sendRichMessage(chat, { markdown: text }, where, signal()).then(receiptOf, (err: unknown) => {
          const failure = botApiFailure(err);
          if (!fallsBackToPlain(failure)) throw this.#sendError("sendRichMessage", err);
          this.#logger.warn({ reason: "rich_message_failed", status: failure.status, description: failure.description }, "telegram refused a rich message; sent with sendMessage");
          return plain();
        });
      }
      case "edit_message": {
        const target = targetOf(message);
        const key = `${message.channel.id}:${target}`;
        // Telegram's edit without `reply_markup` removes the buttons: one that names no choices keeps them by sending them again.
        const keyboard: InlineKeyboardMarkup | undefined = message.choices === undefined ? this.#keyboards.shown(key) : inlineKeyboardOf(message.choices);
        const markup = keyboard === undefined ? {} : { reply_markup: keyboard };
        const edited = (): SendReceipt => {
          this.#keyboards.set(key, keyboard !== undefined && hasButtons(keyboard) ? keyboard : undefined);
          return { messageId: message.reply_to };
        };
        return this.#formatted(message, (markdown) => this.#api.editMessageText(chat, target, text, { ...markdown, ...markup }, signal())).then(edited, (err: unknown) => {
          // The message already shows this text and these buttons: what the edit wanted is there.
          if (isNotModified(botApiFailure(err))) return edited();
          throw err;
        });
      }
      case "delete_message": {
        const target = targetOf(message);
        return this.#api.deleteMessage(chat, target, signal()).then(() => {
          this.#keyboards.set(`${message.channel.id}:${target}`, undefined);
          return { messageId: message.reply_to };
        });
      }
      case "add_reaction":
      case "remove_reaction":
        return this.#react(message, chat, message.command === "add_reaction" ? "add" : "remove", signal);
      case "create_topic":
        // A thread for a message (a cron job's post): Telegram has none outside forums, and a
        // forum topic would not hold the post; the conversation stays where the post is.
        if (message.quote_message_id !== undefined) return Promise.resolve({ messageId: "" });
        return this.#api.createForumTopic(chat, text, undefined, signal()).then((topic) => ({ messageId: String(topic.message_thread_id) }));
      case "typing":
        return this.#api.sendChatAction(chat, "typing", threadOf(message), signal()).then(() => DONE);
      case "answer_tap": {
        // `reply_to` is the tap's callback query id (`GatewayEvent.tap.id`).
        if (message.reply_to === "") throw new SendError("rejected", "answer_tap: no callback query id");
        const notice = tapNotice(text);
        return this.#api.answerCallbackQuery(message.reply_to, notice === "" ? {} : { text: notice }, signal()).then(() => ({ messageId: "" }));
      }
      case "notice":
        // Telegram shows a text to one person only in answer to a callback query (a tap): not here.
        throw new SendError("unsupported", "notice: Telegram has no message only one person sees outside a callback query");
    }
  }

  async #react(message: OutboundMessage, chat: number | string, op: "add" | "remove", signal: () => GrammySignal): Promise<SendReceipt> {
    const target = targetOf(message);
    const emoji = telegramReaction(message.content.text);
    if (emoji === undefined) {
      if (!isMoodFace(message.content.text)) this.#noteUnmapped(message.content.text);
      return { messageId: SKIPPED_MESSAGE_ID };
    }
    const key = `${message.channel.id}:${target}`;
    const call = reactionCall(this.#reactions.shown(key), op, emoji);
    if (!("set" in call)) return { messageId: SKIPPED_MESSAGE_ID };
    await this.#api.setMessageReaction(chat, target, call.set.map((shown) => ({ type: "emoji" as const, emoji: shown as ReactionTypeEmoji["emoji"] })), undefined, signal());
    this.#reactions.set(key, call.set[0]);
    return { messageId: message.reply_to };
  }

  /** The call as the message is to be read: as written (`plainText`: no parse mode, so no retry either), else Markdown first. */
  #formatted<T>(message: OutboundMessage, call: (markdown: { parse_mode?: "Markdown" }) => Promise<T>): Promise<T> {
    return message.plainText === true ? call({}) : this.#markdownFirst(message.content.text, call);
  }

  /**
   * The call with `parse_mode: "Markdown"`, and once more without it when Telegram cannot parse the
   * text. A text that cannot be read as legacy Markdown (`snake_case`, a lone `*`) goes as plain
   * text at once, rather than costing a refused call first.
   */
  async #markdownFirst<T>(text: string, call: (markdown: { parse_mode?: "Markdown" }) => Promise<T>): Promise<T> {
    if (!readsAsLegacyMarkdown(text)) return call({});
    try {
      return await call({ parse_mode: "Markdown" });
    } catch (err) {
      const failure = botApiFailure(err);
      if (failure.kind !== "refused" || failure.status !== 400 || !isMarkdownParseError(failure.description)) throw err;
      this.#logger.debug({ reason: "markdown_parse_error" }, "telegram could not parse the reply's Markdown; sent as plain text");
      return call({});
    }
  }

  #noteUnmapped(emoji: string): void {
    if (this.#unmapped.has(emoji)) return;
    this.#unmapped.add(emoji);
    this.#logger.info({ reason: "reaction_unmapped", emoji }, "status reaction has no Telegram emoji; not shown");
  }
}

/** A file's caption as a text message of its own, quoting the file's message: the same send without the file. */
function captionMessage(message: OutboundMessage, fileMessageId: string): OutboundMessage {
  const { attachment: _file, ...text } = message;
  return { ...text, quote_message_id: fileMessageId };
}

function receiptOf(sent: { readonly message_id: number }): SendReceipt {
  return { messageId: String(sent.message_id) };
}
