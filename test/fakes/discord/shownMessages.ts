import type { APIMessage } from "@discordjs/core";
import { messageObject } from "./apiObjects.js";
import type { ChannelRecord } from "./channels.js";
import { isEphemeral } from "./messagePosting.js";
import { shownText, type MentionNames } from "./shownText.js";
import type { World } from "./world.js";

/** What a channel shows now, one line per message still there, oldest first. */
export interface ShownMessage {
  readonly id: string;
  readonly authorId: string;
  readonly fromBot: boolean;
  readonly content: string;
  /** What a person reads: `content` as Discord's client renders its Markdown and mentions (`shownText`). */
  readonly shown: string;
  /** Its content before each edit, oldest first. */
  readonly earlierContents: readonly string[];
  readonly edits: number;
  /** The bot's own reactions on it: Unicode emoji, or `name:id`. */
  readonly reactions: readonly string[];
  /** The message it replies to. */
  readonly replyTo: string | undefined;
  /** The thread started from it. */
  readonly threadId: string | undefined;
  /** An ephemeral interaction response, seen by its user only. */
  readonly ephemeral: boolean;
  /** The names of its files, in order. */
  readonly attachments: readonly string[];
  /** Its files as a person opens them: the name shown, the type, the exact bytes. */
  readonly files: readonly ShownFile[];
  readonly message: APIMessage;
}

/** A file a message shows. */
export interface ShownFile {
  readonly filename: string;
  readonly contentType: string;
  readonly bytes: Buffer;
}

/** A thread as a test reads it back. */
export interface ThreadView {
  readonly id: string;
  readonly parentId: string;
  readonly name: string;
  readonly type: number;
  readonly ownerId: string;
  readonly autoArchiveDuration: number;
  /** The message it was started from (its id is the thread's), if any. */
  readonly starterMessageId: string | undefined;
}

export function shownMessages(world: World, channel: ChannelRecord): ShownMessage[] {
  const guild = channel.guildId === undefined ? undefined : world.directory.findGuild(channel.guildId);
  const names: MentionNames = {
    user: (id) => {
      const user = world.directory.user(id);
      return user === undefined ? undefined : (guild?.members.get(id)?.nick ?? user.global_name ?? user.username);
    },
    role: (id) => guild?.roles.get(id)?.name,
    channel: (id) => world.channels.find(id)?.name ?? undefined,
  };
  return [...channel.messages.values()]
    .filter((message) => !message.deleted)
    .map((message) => ({
      id: message.id,
      authorId: message.authorId,
      fromBot: message.authorId === world.bot.id,
      content: message.content,
      shown: shownText(message.content, names),
      earlierContents: [...message.earlierContents],
      edits: message.earlierContents.length,
      reactions: [...message.reactions].filter(([, reaction]) => reaction.users.has(world.bot.id)).map(([key]) => key),
      replyTo: message.reference?.messageId,
      threadId: message.threadId,
      ephemeral: isEphemeral(message),
      attachments: message.attachments.map((attachment) => attachment.filename),
      files: message.attachments.map((attachment) => {
        const stored = world.cdn.stored(message.channelId, attachment);
        return { filename: attachment.filename, contentType: stored?.contentType ?? "", bytes: stored?.bytes ?? Buffer.alloc(0) };
      }),
      message: messageObject(message, world, { gateway: false, readable: () => true }),
    }));
}

export function threadView(channel: ChannelRecord): ThreadView {
  const { thread } = channel;
  return { id: channel.id, parentId: channel.parentId!, name: channel.name ?? "", type: channel.type, ownerId: thread!.ownerId, autoArchiveDuration: thread!.autoArchiveDuration, starterMessageId: thread!.starterMessageId };
}
