import type { APIAttachment } from "@discordjs/core";
import { unknownChannel, unknownMessage } from "./discordApiError.js";
import { FULL_ACCESS, type BotPermissions } from "./permissions.js";
import type { Snowflakes } from "./snowflakes.js";

/** Channel types the fake has (docs: Resources › Channel › Channel Types). */
export const CHANNEL_TYPE = {
  GUILD_TEXT: 0,
  DM: 1,
  GUILD_CATEGORY: 4,
  GUILD_ANNOUNCEMENT: 5,
  PUBLIC_THREAD: 11,
  PRIVATE_THREAD: 12,
  GUILD_FORUM: 15,
} as const;

/** The auto-archive durations Discord accepts, in minutes. */
export const ARCHIVE_DURATIONS = [60, 1440, 4320, 10080] as const;

export interface ThreadInfo {
  readonly ownerId: string;
  autoArchiveDuration: number;
  readonly createdAt: number;
  /** The message the thread was started from (in the parent channel; its id is the thread's). */
  readonly starterMessageId: string | undefined;
  readonly memberIds: Set<string>;
  archived: boolean;
  locked: boolean;
}

export interface ChannelRecord {
  readonly id: string;
  readonly type: number;
  readonly guildId: string | undefined;
  readonly name: string | null;
  readonly parentId: string | undefined;
  /** A DM's other user. */
  readonly recipientId: string | undefined;
  readonly thread: ThreadInfo | undefined;
  /** What the bot may do here; a thread reads its parent's (`permissionsOf`). */
  permissions: BotPermissions;
  /** Every message ever posted here by id, in the order they were posted (which is id order). */
  readonly messages: Map<string, StoredMessage>;
  lastMessageId: string | null;
}

export interface StoredReaction {
  readonly emoji: { readonly id: string | null; readonly name: string };
  readonly users: Set<string>;
}

/** A message as the fake keeps it: its current form, what it was before each edit, who reacted with what. */
export interface StoredMessage {
  readonly id: string;
  readonly channelId: string;
  readonly authorId: string;
  readonly createdAt: number;
  readonly type: number;
  content: string;
  embeds: unknown[];
  components: unknown[];
  attachments: APIAttachment[];
  flags: number;
  mentionUserIds: string[];
  mentionRoleIds: string[];
  mentionEveryone: boolean;
  readonly reference: { readonly messageId: string; readonly channelId: string; readonly guildId: string | undefined } | undefined;
  readonly nonce: string | number | undefined;
  editedAt: number | null;
  /** Its content before each edit, oldest first. */
  readonly earlierContents: string[];
  /** By emoji key: the Unicode emoji itself, or `name:id` for a custom one. */
  readonly reactions: Map<string, StoredReaction>;
  deleted: boolean;
  /** The thread started from it. */
  threadId: string | undefined;
  /** Set when it answers an interaction. */
  readonly interaction: { readonly id: string; readonly type: number; readonly name: string | undefined; readonly userId: string } | undefined;
}

export type NewMessage = Omit<StoredMessage, "id" | "channelId" | "createdAt" | "editedAt" | "earlierContents" | "reactions" | "deleted" | "threadId">;

/** Guild channels, threads and DMs, and every message in them. */
export class Channels {
  private readonly byId = new Map<string, ChannelRecord>();
  private readonly dmByUser = new Map<string, ChannelRecord>();

  constructor(
    private readonly ids: Snowflakes,
    private readonly now: () => number,
  ) {}

  addGuildChannel(guildId: string, options: { name: string; type?: number; parentId?: string; id?: string; permissions?: Partial<BotPermissions> }): ChannelRecord {
    const type = options.type ?? CHANNEL_TYPE.GUILD_TEXT;
    return this.register({ id: options.id ?? this.ids.next(), type, guildId, name: options.name, parentId: options.parentId, recipientId: undefined, thread: undefined, permissions: { ...FULL_ACCESS, ...options.permissions } });
  }

  /** The DM channel between the bot and a user: one per user, made on first use. */
  dmWith(userId: string): ChannelRecord {
    const known = this.dmByUser.get(userId);
    if (known) return known;
    const dm = this.register({ id: this.ids.next(), type: CHANNEL_TYPE.DM, guildId: undefined, name: null, parentId: undefined, recipientId: userId, thread: undefined, permissions: FULL_ACCESS });
    this.dmByUser.set(userId, dm);
    return dm;
  }

  /** A thread under `parent`; one started from a message takes the message's id, as Discord gives it. */
  addThread(parent: ChannelRecord, options: { name: string; ownerId: string; type?: number; starterMessageId?: string; autoArchiveDuration?: number }): ChannelRecord {
    const thread: ThreadInfo = {
      ownerId: options.ownerId,
      autoArchiveDuration: options.autoArchiveDuration ?? 4320,
      createdAt: this.now(),
      starterMessageId: options.starterMessageId,
      memberIds: new Set([options.ownerId]),
      archived: false,
      locked: false,
    };
    const id = options.starterMessageId ?? this.ids.next();
    return this.register({ id, type: options.type ?? CHANNEL_TYPE.PUBLIC_THREAD, guildId: parent.guildId, name: options.name, parentId: parent.id, recipientId: undefined, thread, permissions: parent.permissions });
  }

  find(id: string): ChannelRecord | undefined {
    return this.byId.get(id);
  }

  /** A channel, or 10003 Unknown Channel. */
  known(id: string): ChannelRecord {
    const channel = this.byId.get(id);
    if (!channel) throw unknownChannel();
    return channel;
  }

  all(): ChannelRecord[] {
    return [...this.byId.values()];
  }

  /** What the bot may do in a channel: a thread's are its parent's. */
  permissionsOf(channel: ChannelRecord): BotPermissions {
    const parent = channel.thread && channel.parentId ? this.byId.get(channel.parentId) : undefined;
    return parent ? parent.permissions : channel.permissions;
  }

  store(channel: ChannelRecord, message: NewMessage): StoredMessage {
    const stored: StoredMessage = { ...message, id: this.ids.next(), channelId: channel.id, createdAt: this.now(), editedAt: null, earlierContents: [], reactions: new Map(), deleted: false, threadId: undefined };
    channel.messages.set(stored.id, stored);
    channel.lastMessageId = stored.id;
    return stored;
  }

  /** A message still in the channel, or undefined. */
  live(channel: ChannelRecord, messageId: string): StoredMessage | undefined {
    const stored = channel.messages.get(messageId);
    return stored && !stored.deleted ? stored : undefined;
  }

  /** A message still in the channel, or 10008 Unknown Message. */
  knownMessage(channel: ChannelRecord, messageId: string): StoredMessage {
    const stored = this.live(channel, messageId);
    if (!stored) throw unknownMessage();
    return stored;
  }

  /** Messages still there, newest first, as Get Channel Messages pages them (`before`, `after`, `around`). */
  history(channel: ChannelRecord, page: { before?: string; after?: string; around?: string; limit: number }): StoredMessage[] {
    const newestFirst = [...channel.messages.values()].filter((message) => !message.deleted).reverse();
    const id = (message: StoredMessage) => BigInt(message.id);
    if (page.before !== undefined) return newestFirst.filter((message) => id(message) < BigInt(page.before!)).slice(0, page.limit);
    if (page.after !== undefined) return newestFirst.filter((message) => id(message) > BigInt(page.after!)).slice(-page.limit);
    if (page.around !== undefined) {
      const pivot = BigInt(page.around);
      const newer = newestFirst.filter((message) => id(message) > pivot).slice(-Math.floor(page.limit / 2));
      const rest = newestFirst.filter((message) => id(message) <= pivot).slice(0, page.limit - newer.length);
      return [...newer, ...rest];
    }
    return newestFirst.slice(0, page.limit);
  }

  private register(record: Omit<ChannelRecord, "messages" | "lastMessageId">): ChannelRecord {
    const channel: ChannelRecord = { ...record, messages: new Map(), lastMessageId: null };
    this.byId.set(channel.id, channel);
    return channel;
  }
}
