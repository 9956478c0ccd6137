import type { Message, MessageEntity, UserFromGetMe } from "grammy/types";
import { badRequest, conflict, tooManyRequests } from "./botApiError.js";
import type { BotFiles } from "./botFiles.js";
import type { ChatRef } from "./paramReaders.js";
import type { ChatRecord, ChatState, StoredMessage } from "./chatState.js";
import { isForum } from "./chatState.js";
import * as media from "./mediaSchemas.js";
import * as schema from "./methodSchemas.js";
import { REACTION_EMOJI } from "./reactionEmoji.js";
import type { Params } from "./requestParams.js";
import { checkedUpload, documentOf, photoSizes } from "./sentMedia.js";
import type { FormattedText } from "./textBytes.js";
import type { UpdateQueue } from "./updateQueue.js";
import type { WebhookSender } from "./webhookDelivery.js";

/** What the methods act on. */
export interface BotContext {
  readonly me: UserFromGetMe;
  readonly state: ChatState;
  readonly queue: UpdateQueue;
  readonly webhook: WebhookSender;
  readonly files: BotFiles;
  /** The largest file the bot may upload (413 past it). */
  readonly uploadLimitBytes: number;
  readonly openCallbackQueries: Set<string>;
  /** Answers to callback queries, by query id. */
  readonly callbackAnswers: Map<string, { text: string | undefined; show_alert: boolean }>;
  readonly now: () => number;
}

/** A result with the `description` Telegram adds beside it (`"Webhook was set"`). */
export class Described {
  constructor(
    readonly result: unknown,
    readonly description: string,
  ) {}
}

export type MethodHandler = (params: Params, gone: AbortSignal) => unknown;

/** A method the fake serves: its documented name and what it does. */
export interface BotMethod {
  readonly name: string;
  readonly handle: MethodHandler;
}

const NOT_MODIFIED = "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

/** The methods the fake serves, keyed by lower-case name: calls match them case-insensitively, as Telegram's do. */
export function botMethods(bot: BotContext): ReadonlyMap<string, BotMethod> {
  const { state, queue, webhook } = bot;
  const unixNow = () => Math.floor(bot.now() / 1000);
  let nextSetWebhookAt = 0;

  const handlers: Record<string, MethodHandler> = {
    getMe: () => bot.me,

    getUpdates: (params, gone) => {
      const args = schema.getUpdatesArgs(params);
      if (webhook.setting) throw conflict("can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");
      return queue.getUpdates(args, gone);
    },

    setWebhook: (params) => {
      const args = schema.setWebhookArgs(params);
      if (args.url === "") return deleteWebhook(args.dropPendingUpdates);
      // Telegram lets a bot set its webhook once a second.
      if (bot.now() < nextSetWebhookAt) throw tooManyRequests(1);
      nextSetWebhookAt = bot.now() + 1000;
      queue.endWaiting(conflict("terminated by setWebhook request"));
      if (args.dropPendingUpdates) queue.dropAll();
      const current = webhook.setting;
      queue.allow(args.allowedUpdates);
      const setting = { url: args.url, secretToken: args.secretToken || undefined, maxConnections: args.maxConnections, allowedUpdates: args.allowedUpdates ?? current?.allowedUpdates };
      if (current && JSON.stringify(current) === JSON.stringify(setting)) return new Described(true, "Webhook is already set");
      webhook.set(setting);
      return new Described(true, "Webhook was set");
    },

    deleteWebhook: (params) => deleteWebhook(schema.setWebhookArgs({ drop_pending_updates: params.drop_pending_updates }).dropPendingUpdates),

    getWebhookInfo: () => webhook.info(),

    sendMessage: (params) => {
      const args = schema.sendMessageArgs(params);
      return post(args, {
        ...textFields(args.text),
        ...(args.linkPreview ? { link_preview_options: args.linkPreview } : {}),
      }).message;
    },

    // The message carries `rich_message` and no `text`; the fake renders no blocks from Markdown or
    // HTML (one paragraph holds the source) and keeps the source for `shown()` to read back.
    sendRichMessage: (params) => {
      const args = schema.sendRichMessageArgs(params);
      const { text, blocks, isRtl } = args.rich;
      const stored = post(args, { rich_message: { blocks: blocks ?? [{ type: "paragraph", text }], ...(isRtl ? { is_rtl: true } : {}) } });
      if (text !== undefined) stored.richText = text;
      return stored.message;
    },

    // A photo or a document the bot uploads (multipart/form-data): checked as Telegram checks it once
    // the chat is known, kept with its exact bytes for `shown()`, and served by `getFile` as any file.
    sendPhoto: (params) => {
      const args = media.sendPhotoArgs(params);
      state.thread(state.find(args.chat), args.threadId);
      const size = checkedUpload(args.file, "photo", bot.uploadLimitBytes)!;
      const stored = post(args, { photo: photoSizes(bot.files, args.file, size), ...captionFields(args.caption) });
      stored.file = { kind: "photo", name: undefined, mime_type: `image/${size.format}`, size: args.file.size, bytes: args.file.bytes };
      return stored.message;
    },

    sendDocument: (params) => {
      const args = media.sendDocumentArgs(params);
      state.thread(state.find(args.chat), args.threadId);
      checkedUpload(args.file, "document", bot.uploadLimitBytes);
      const document = documentOf(bot.files, args.file);
      const stored = post(args, { document, ...captionFields(args.caption) });
      stored.file = { kind: "document", name: document.file_name, mime_type: document.mime_type, size: args.file.size, bytes: args.file.bytes };
      return stored.message;
    },

    editMessageText: (params) => {
      const args = schema.editMessageTextArgs(params);
      const stored = botMessageToEdit(args.target);
      if (stored.message.text === undefined) throw badRequest("there is no text in the message to edit");
      const before = stored.message;
      if (before.text === args.text.text && sameJson(before.entities ?? [], args.text.entities) && sameJson(before.reply_markup, args.markup)) {
        throw badRequest(NOT_MODIFIED);
      }
      stored.earlierTexts.push(before.text ?? "");
      const { entities: _entities, reply_markup: _markup, ...rest } = before;
      stored.message = { ...rest, ...textFields(args.text), edit_date: unixNow(), ...(args.markup ? { reply_markup: args.markup } : {}) } as Message;
      return stored.message;
    },

    editMessageReplyMarkup: (params) => {
      const args = schema.editMessageReplyMarkupArgs(params);
      const stored = botMessageToEdit(args.target);
      if (sameJson(stored.message.reply_markup, args.markup)) throw badRequest(NOT_MODIFIED);
      const { reply_markup: _markup, ...rest } = stored.message;
      stored.message = { ...rest, edit_date: unixNow(), ...(args.markup ? { reply_markup: args.markup } : {}) } as Message;
      return stored.message;
    },

    deleteMessage: (params) => {
      const args = schema.deleteMessageArgs(params);
      const record = state.find(args.chat);
      const stored = state.live(record, args.messageId);
      if (!stored) throw badRequest("message to delete not found");
      const own = stored.message.from?.id === bot.me.id;
      if (!own && record.chat.type !== "private" && !record.botIsAdmin) throw badRequest("message can't be deleted");
      stored.deleted = true;
      return true;
    },

    setMessageReaction: (params) => {
      const args = schema.setMessageReactionArgs(params);
      const record = state.find(args.chat);
      const stored = state.live(record, args.messageId);
      if (!stored) throw badRequest("message to react not found");
      if (stored.message.forum_topic_created) throw badRequest("REACTION_INVALID");
      for (const reaction of args.reaction) {
        if (reaction.type !== "emoji" || !REACTION_EMOJI.has(reaction.emoji)) throw badRequest("REACTION_INVALID");
      }
      // A bot is not a premium user: one reaction per message at most.
      if (args.reaction.length > 1) throw badRequest("REACTIONS_TOO_MANY");
      stored.reactions = args.reaction.map((reaction) => ({ type: "emoji", emoji: (reaction as { emoji: string }).emoji }) as StoredMessage["reactions"][number]);
      return true;
    },

    sendChatAction: (params) => {
      const args = schema.sendChatActionArgs(params);
      state.thread(state.find(args.chat), args.threadId);
      return true;
    },

    createForumTopic: (params) => {
      const args = schema.createForumTopicArgs(params);
      return state.createTopic(state.find(args.chat), args.name, args.iconColor, bot.me, unixNow());
    },

    getFile: (params) => bot.files.getFile(schema.getFileArgs(params).fileId),

    answerCallbackQuery: (params) => {
      const args = schema.answerCallbackQueryArgs(params);
      if (!bot.openCallbackQueries.delete(args.id)) throw badRequest("query is too old and response timeout expired or query ID is invalid");
      bot.callbackAnswers.set(args.id, { text: args.text, show_alert: args.showAlert });
      return true;
    },
  };

  /**
   * A new message of the bot's: in the topic `message_thread_id` names (refused outside a forum), or the
   * topic of the message it replies to; quoting it, or in a topic its first message.
   */
  function post(args: { chat: ChatRef; threadId: number | undefined; reply: schema.SendMessageArgs["reply"]; markup: schema.SendMessageArgs["markup"] }, content: Record<string, unknown>): StoredMessage {
    const record = state.find(args.chat);
    let threadId = state.thread(record, args.threadId);
    const replied = args.reply ? repliedMessage(record, args.reply) : undefined;
    if (replied && replied.record === record) threadId ??= replied.stored.message.message_thread_id;
    const reply = replied ? replyFields(record, replied) : topicReply(record, threadId);
    return state.store(record, (message_id) => ({
      message_id,
      from: bot.me,
      chat: record.chat,
      date: unixNow(),
      ...(threadId !== undefined ? { message_thread_id: threadId, is_topic_message: true } : {}),
      ...reply,
      ...content,
      ...(args.markup && "inline_keyboard" in args.markup ? { reply_markup: args.markup } : {}),
    }) as Message);
  }

  function deleteWebhook(dropPending: boolean): Described {
    if (dropPending) queue.dropAll();
    if (!webhook.setting) return new Described(true, "Webhook is already deleted");
    webhook.clear();
    return new Described(true, "Webhook was deleted");
  }

  /** The bot's message an edit names: refused when gone, not the bot's, or sent in inline mode (never, here). */
  function botMessageToEdit(target: schema.EditTarget): StoredMessage {
    if ("inlineMessageId" in target) throw badRequest("MESSAGE_ID_INVALID");
    const stored = state.live(state.find(target.chat), target.messageId);
    if (!stored) throw badRequest("message to edit not found");
    if (stored.message.from?.id !== bot.me.id) throw badRequest("message can't be edited");
    return stored;
  }

  function repliedMessage(record: ChatRecord, reply: NonNullable<schema.SendMessageArgs["reply"]>): { record: ChatRecord; stored: StoredMessage } | undefined {
    const inChat = reply.chatId === undefined ? record : state.find(reply.chatId);
    const stored = state.live(inChat, reply.messageId);
    if (stored) return { record: inChat, stored };
    if (reply.allowSendingWithoutReply) return undefined;
    throw badRequest("message to be replied not found");
  }

  /** A reply in the same chat quotes the message; one in another chat is an external reply. */
  function replyFields(record: ChatRecord, replied: { record: ChatRecord; stored: StoredMessage }): Record<string, unknown> {
    const { reply_to_message: _nested, ...message } = replied.stored.message;
    if (replied.record === record) return { reply_to_message: message };
    return { external_reply: { origin: { type: "chat", sender_chat: replied.record.chat, date: message.date }, chat: replied.record.chat, message_id: message.message_id } };
  }

  /** In a forum topic, a message that replies to nothing replies to the topic's first message (as Telegram shows it). */
  function topicReply(record: ChatRecord, threadId: number | undefined): Record<string, unknown> {
    if (threadId === undefined || !isForum(record.chat)) return {};
    const first = state.live(record, threadId);
    return first ? { reply_to_message: first.message } : {};
  }

  return new Map(Object.entries(handlers).map(([name, handle]) => [name.toLowerCase(), { name, handle }]));
}

function textFields(text: FormattedText): { text: string; entities?: MessageEntity[] } {
  return text.entities.length > 0 ? { text: text.text, entities: [...text.entities] } : { text: text.text };
}

function captionFields(caption: FormattedText): { caption?: string; caption_entities?: MessageEntity[] } {
  if (caption.text === "") return {};
  return caption.entities.length > 0 ? { caption: caption.text, caption_entities: [...caption.entities] } : { caption: caption.text };
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
