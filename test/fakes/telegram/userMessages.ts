import type { Message, MessageEntity, Update, User } from "grammy/types";
import type { BotFiles, StoredFile } from "./botFiles.js";
import { isForum, type ChatRecord, type ChatState, type StoredMessage } from "./chatState.js";
import type { UpdateQueue } from "./updateQueue.js";

/** What a user's message may add to its text: a topic, a reply, entities in place of the detected ones. */
export interface UserMessageOptions {
  /** The forum topic (`message_thread_id`) the message is written in. */
  readonly threadId?: number;
  /** The message it replies to, in the same chat. */
  readonly replyTo?: number;
  /** Entities instead of the ones Telegram would detect (`mention`, `bot_command`). */
  readonly entities?: MessageEntity[];
}

export interface MediaOptions extends Omit<UserMessageOptions, "entities"> {
  readonly caption?: string;
  readonly mimeType?: string;
  readonly duration?: number;
  readonly fileName?: string;
}

export interface UserContext {
  readonly state: ChatState;
  readonly queue: UpdateQueue;
  readonly files: BotFiles;
  /** Callback query ids not yet answered. */
  readonly openCallbackQueries: Set<string>;
  readonly now: () => number;
}

/**
 * One user's (or another bot's) side of the chats: each call builds the update Telegram would send for
 * what they did, keeps the message in the chat's state and queues the update with the next `update_id`.
 */
export class UserActor {
  private static callbackQueryCount = 0;

  constructor(
    readonly user: User,
    private readonly context: UserContext,
  ) {}

  /** A text message; `@mentions` and a leading `/command` get their entities at UTF-16 offsets. */
  text(chatId: number, text: string, options: UserMessageOptions = {}): Update {
    const entities = options.entities ?? detectedEntities(text);
    return this.message(chatId, options, { text, ...(entities.length > 0 ? { entities } : {}) });
  }

  /** A voice note (OGG/Opus by default); its bytes are served through getFile. */
  voice(chatId: number, bytes: Uint8Array | string, options: MediaOptions = {}): Update {
    const file = this.context.files.register(bytes, { folder: "voice", extension: "oga" });
    return this.media(chatId, options, { voice: { ...fileRef(file), duration: options.duration ?? 1, mime_type: options.mimeType ?? "audio/ogg" } });
  }

  audio(chatId: number, bytes: Uint8Array | string, options: MediaOptions = {}): Update {
    const file = this.context.files.register(bytes, { folder: "music", extension: "mp3" });
    const name = options.fileName ? { file_name: options.fileName } : {};
    return this.media(chatId, options, { audio: { ...fileRef(file), duration: options.duration ?? 1, mime_type: options.mimeType ?? "audio/mpeg", ...name } });
  }

  /** A photo, in two sizes as Telegram sends them (a thumbnail and the full one, largest last). */
  photo(chatId: number, bytes: Uint8Array | string, options: MediaOptions & { width?: number; height?: number } = {}): Update {
    const small = this.context.files.register(bytes, { folder: "photos", extension: "jpg" });
    const large = this.context.files.register(bytes, { folder: "photos", extension: "jpg" });
    const width = options.width ?? 1280;
    const height = options.height ?? 960;
    return this.media(chatId, options, {
      photo: [
        { ...fileRef(small), width: 90, height: Math.round((90 * height) / width) },
        { ...fileRef(large), width, height },
      ],
    });
  }

  document(chatId: number, bytes: Uint8Array | string, options: MediaOptions & { fileName: string }): Update {
    const extension = options.fileName.includes(".") ? options.fileName.split(".").pop()! : "bin";
    const file = this.context.files.register(bytes, { folder: "documents", extension });
    return this.media(chatId, options, { document: { ...fileRef(file), file_name: options.fileName, mime_type: options.mimeType ?? "application/octet-stream" } });
  }

  /** The user edits their own message: an `edited_message` update with the new text. */
  edit(chatId: number, messageId: number, text: string): Update {
    const record = this.context.state.find(chatId);
    const stored = this.context.state.live(record, messageId);
    if (!stored || stored.message.from?.id !== this.user.id) throw new Error(`fake Bot API: message ${messageId} in chat ${chatId} is not ${this.user.id}'s to edit`);
    const entities = detectedEntities(text);
    stored.earlierTexts.push(stored.message.text ?? "");
    stored.message = { ...stored.message, text, edit_date: this.unixNow(), ...(entities.length > 0 ? { entities } : { entities: undefined }) } as Message;
    return this.context.queue.push({ edited_message: stored.message } as Omit<Update, "update_id">);
  }

  /** The user presses an inline button of the bot's message: a `callback_query` update. */
  press(chatId: number, messageId: number, data: string): Update {
    const record = this.context.state.find(chatId);
    const stored = this.context.state.live(record, messageId);
    const markup = stored?.message.reply_markup;
    const buttons = markup ? markup.inline_keyboard.flat() : [];
    if (!buttons.some((button) => "callback_data" in button && button.callback_data === data)) {
      throw new Error(`fake Bot API: message ${messageId} in chat ${chatId} has no button with callback_data ${JSON.stringify(data)}`);
    }
    const id = String(4_000_000_000_000 + ++UserActor.callbackQueryCount);
    this.context.openCallbackQueries.add(id);
    return this.context.queue.push({
      callback_query: { id, from: this.user, message: stored!.message, chat_instance: `ci${chatId}`, data },
    } as Omit<Update, "update_id">);
  }

  private media(chatId: number, options: MediaOptions, content: Record<string, unknown>): Update {
    const caption = options.caption === undefined ? {} : { caption: options.caption, ...captionEntities(options.caption) };
    return this.message(chatId, options, { ...content, ...caption });
  }

  private message(chatId: number, options: Omit<UserMessageOptions, "entities">, content: Record<string, unknown>): Update {
    const { state, queue } = this.context;
    const record = state.find(chatId);
    if (options.threadId !== undefined && !record.topics.has(options.threadId)) {
      throw new Error(`fake Bot API: chat ${chatId} has no topic ${options.threadId}`);
    }
    const replied = this.repliedMessage(record, options);
    const stored = state.store(record, (message_id) => ({
      message_id,
      from: this.user,
      chat: record.chat,
      date: this.unixNow(),
      ...(options.threadId !== undefined ? { message_thread_id: options.threadId, is_topic_message: true } : {}),
      ...(replied ? { reply_to_message: replied } : {}),
      ...content,
    }) as Message);
    return queue.push({ message: stored.message } as Omit<Update, "update_id">);
  }

  /**
   * The message replied to, without its own reply. In a forum topic Telegram makes every message that is
   * not a reply a reply to the topic's first (service) message: adapters meet that in real chats.
   */
  private repliedMessage(record: ChatRecord, options: Omit<UserMessageOptions, "entities">): Message | undefined {
    const target = options.replyTo ?? (isForum(record.chat) ? options.threadId : undefined);
    if (target === undefined) return undefined;
    const stored: StoredMessage | undefined = this.context.state.live(record, target);
    if (!stored) throw new Error(`fake Bot API: no message ${target} in chat ${record.chat.id} to reply to`);
    const { reply_to_message: _nested, ...message } = stored.message;
    return message as Message;
  }

  private unixNow(): number {
    return Math.floor(this.context.now() / 1000);
  }
}

function fileRef(file: StoredFile): { file_id: string; file_unique_id: string; file_size: number } {
  return { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: file.file_size };
}

/** Entities Telegram detects in a user's text: `@username` mentions and `/commands`, at UTF-16 offsets. */
export function detectedEntities(text: string): MessageEntity[] {
  const entities: MessageEntity[] = [];
  for (const match of text.matchAll(/(^|[^\w@])(@[A-Za-z][A-Za-z0-9_]{4,31})(?![\w@])/g)) {
    entities.push({ type: "mention", offset: match.index + match[1]!.length, length: match[2]!.length });
  }
  for (const match of text.matchAll(/(^|\s)(\/[A-Za-z0-9_]{1,32}(@[A-Za-z][A-Za-z0-9_]{4,31})?)(?![\w@/])/g)) {
    entities.push({ type: "bot_command", offset: match.index + match[1]!.length, length: match[2]!.length });
  }
  return entities.sort((a, b) => a.offset - b.offset);
}

function captionEntities(caption: string): { caption_entities?: MessageEntity[] } {
  const entities = detectedEntities(caption);
  return entities.length > 0 ? { caption_entities: entities } : {};
}
