import type { Chat, ForumTopic, InlineKeyboardButton, Message, ReactionTypeEmoji, User } from "grammy/types";
import { badRequest } from "./botApiError.js";
import type { ChatRef } from "./paramReaders.js";
import type { SentFile } from "./sentMedia.js";

/** A message as the fake keeps it: its current form (edits applied), whether it is gone, what the bot reacted. */
export interface StoredMessage {
  message: Message;
  deleted: boolean;
  /** The texts it had before each edit, oldest first. */
  readonly earlierTexts: string[];
  /** The bot's reaction on it (a non-premium bot holds at most one). */
  reactions: ReactionTypeEmoji[];
  /** A rich message's Markdown or HTML as sent (the message itself has blocks, no `text`). */
  richText?: string;
  /** The photo or document the bot sent in it (`sendPhoto`, `sendDocument`), with its exact bytes. */
  file?: SentFile;
}

/** A chat the fake knows, with its topics and every message in it. */
export interface ChatRecord {
  readonly chat: Chat;
  /** A forum's topics by `message_thread_id`. */
  readonly topics: Map<number, ForumTopic>;
  readonly messages: Map<number, StoredMessage>;
  nextMessageId: number;
  /** Whether the bot may delete other people's messages here. */
  botIsAdmin: boolean;
}

/** What a chat shows now: one line per message still there, oldest first. */
export interface ShownMessage {
  readonly message_id: number;
  readonly from_bot: boolean;
  /** The text, or a rich message's Markdown or HTML as sent. */
  readonly text: string | undefined;
  /** Sent as a rich message (`sendRichMessage`). */
  readonly rich: boolean;
  /** A photo's or document's caption, entities parsed out; undefined when it has none. */
  readonly caption: string | undefined;
  /** The photo or document the bot sent (kind, name, size and the exact bytes); undefined for any other message. */
  readonly file: SentFile | undefined;
  readonly message_thread_id: number | undefined;
  readonly reply_to_message_id: number | undefined;
  /** The bot's reaction emoji on it. */
  readonly reactions: readonly string[];
  /** The rows of its inline keyboard (`reply_markup`), as an edit left them; `[]` when it has none. */
  readonly keyboard: readonly (readonly InlineKeyboardButton[])[];
  readonly edits: number;
  readonly message: Message;
}

/** Telegram's ids: a supergroup's chat id is -100 followed by its channel id. */
const SUPERGROUP_BASE = -1_000_000_000_000;

/** Users and chats (private, group, supergroup, forum supergroup with topics) and the messages in them. */
export class ChatState {
  private readonly users = new Map<number, User>();
  private readonly chats = new Map<number, ChatRecord>();
  private nextGroupId = 1;

  constructor(readonly bot: User) {}

  addUser(user: Omit<User, "is_bot"> & { is_bot?: boolean }): User {
    const added: User = { ...user, is_bot: user.is_bot ?? false };
    this.users.set(added.id, added);
    return added;
  }

  user(id: number): User | undefined {
    return this.users.get(id);
  }

  /** The private chat of a user with the bot (its id is the user's); the user is added if new. */
  addPrivateChat(user: User): Chat.PrivateChat {
    if (!this.users.has(user.id)) this.addUser(user);
    const chat: Chat.PrivateChat = { id: user.id, type: "private", first_name: user.first_name, ...(user.last_name ? { last_name: user.last_name } : {}), ...(user.username ? { username: user.username } : {}) };
    return this.register(chat).chat as Chat.PrivateChat;
  }

  addGroup(options: { title: string; id?: number }): Chat.GroupChat {
    const chat: Chat.GroupChat = { id: options.id ?? -(this.nextGroupId++ + 4000), type: "group", title: options.title };
    return this.register(chat).chat as Chat.GroupChat;
  }

  addSupergroup(options: { title: string; id?: number; username?: string; isForum?: boolean; botIsAdmin?: boolean }): Chat.SupergroupChat {
    const chat = {
      id: options.id ?? SUPERGROUP_BASE - (this.nextGroupId++ + 5000),
      type: "supergroup",
      title: options.title,
      ...(options.username ? { username: options.username } : {}),
      ...(options.isForum ? { is_forum: true } : {}),
    } as Chat.SupergroupChat;
    const record = this.register(chat);
    record.botIsAdmin = options.botIsAdmin ?? false;
    return chat;
  }

  /**
   * A new forum topic: its first message is the `forum_topic_created` service message, whose id is the
   * topic's `message_thread_id`. Refused unless the chat is a forum; the name is cut to 128 characters.
   */
  createTopic(record: ChatRecord, name: string, iconColor: number, creator: User, date: number): ForumTopic {
    if (!isForum(record.chat)) throw badRequest("The chat is not a forum");
    const cleaned = [...name.replace(/[\u0000-\u001f]/g, " ").trim()].slice(0, 128).join("");
    if (cleaned === "") throw badRequest("Name must be non-empty");
    const created = { name: cleaned, icon_color: iconColor };
    const stored = this.store(record, (message_id) => ({ message_id, message_thread_id: message_id, from: creator, chat: record.chat, date, forum_topic_created: created, is_topic_message: true }) as Message);
    const topic: ForumTopic = { message_thread_id: stored.message.message_id, ...created };
    record.topics.set(topic.message_thread_id, topic);
    return topic;
  }

  /** Finds a chat as a call names it, or refuses as Telegram does ("chat not found"). */
  find(ref: ChatRef): ChatRecord {
    const record =
      typeof ref === "number"
        ? this.chats.get(ref)
        : [...this.chats.values()].find((each) => "username" in each.chat && each.chat.type !== "private" && each.chat.username?.toLowerCase() === ref.slice(1).toLowerCase());
    if (!record) throw badRequest("chat not found");
    return record;
  }

  record(chatId: number): ChatRecord | undefined {
    return this.chats.get(chatId);
  }

  /** A message still in the chat, or undefined when it never was or was deleted. */
  live(record: ChatRecord, messageId: number): StoredMessage | undefined {
    const stored = record.messages.get(messageId);
    return stored && !stored.deleted ? stored : undefined;
  }

  /** Keeps a new message under the chat's next id (ids count up per chat, user's and bot's alike). */
  store(record: ChatRecord, build: (messageId: number) => Message): StoredMessage {
    const messageId = record.nextMessageId++;
    const stored: StoredMessage = { message: build(messageId), deleted: false, earlierTexts: [], reactions: [] };
    record.messages.set(messageId, stored);
    return stored;
  }

  /** The topic a call names with `message_thread_id`: refused unless the chat is a forum that has it. */
  thread(record: ChatRecord, threadId: number | undefined): number | undefined {
    if (threadId === undefined || threadId === 0) return undefined;
    if (!isForum(record.chat) || !record.topics.has(threadId)) throw badRequest("message thread not found");
    return threadId;
  }

  /** What the chat shows now (deleted messages gone, edits applied), oldest first; `thread` narrows to a topic. */
  shown(chatId: number, options: { thread?: number } = {}): ShownMessage[] {
    const record = this.chats.get(chatId);
    if (!record) return [];
    return [...record.messages.values()]
      .filter((stored) => !stored.deleted && (options.thread === undefined || stored.message.message_thread_id === options.thread))
      .map(({ message, reactions, earlierTexts, richText, file }) => ({
        message_id: message.message_id,
        from_bot: message.from?.id === this.bot.id,
        text: message.text ?? richText,
        rich: message.rich_message !== undefined,
        caption: message.caption,
        file,
        message_thread_id: message.message_thread_id,
        reply_to_message_id: message.reply_to_message?.message_id,
        reactions: reactions.map((reaction) => reaction.emoji),
        keyboard: message.reply_markup?.inline_keyboard ?? [],
        edits: earlierTexts.length,
        message,
      }));
  }

  private register(chat: Chat): ChatRecord {
    const known = this.chats.get(chat.id);
    if (known) return known;
    const record: ChatRecord = { chat, topics: new Map(), messages: new Map(), nextMessageId: 1, botIsAdmin: false };
    this.chats.set(chat.id, record);
    return record;
  }
}

export function isForum(chat: Chat): boolean {
  return chat.type === "supergroup" && (chat as { is_forum?: boolean }).is_forum === true;
}
