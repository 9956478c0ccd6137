import type { APIAttachment } from "@discordjs/core";
import type { ChannelRecord, StoredMessage } from "./channels.js";
import { emptyMessage, missingAccess } from "./discordApiError.js";
import { messageEvent } from "./gatewayEvents.js";
import { mentionsIn, type AllowedMentions, type Mentions } from "./mentions.js";
import { MESSAGE_FLAG } from "./messageFields.js";
import type { NewFile } from "./uploads.js";
import type { World } from "./world.js";

/** Message types the fake makes (docs: Resources › Message › Message Types). */
export const MESSAGE_TYPE = { DEFAULT: 0, REPLY: 19, CHAT_INPUT_COMMAND: 20 } as const;

/** The channel a bot's call names: known (else 10003 Unknown Channel) and visible to the bot (else 50001). */
export function visibleChannel(world: World, id: string): ChannelRecord {
  const channel = world.channels.known(id);
  if (!world.channels.permissionsOf(channel).view) throw missingAccess();
  return channel;
}

/** Who a message in `channel` by `authorId` pings, with its content, allowed_mentions and reply. */
export function mentionsFor(world: World, channel: ChannelRecord, content: string, allowed: AllowedMentions | undefined, options: { canMentionEveryone: boolean; repliedAuthorId?: string }): Mentions {
  const guild = channel.guildId ? world.directory.findGuild(channel.guildId) : undefined;
  return mentionsIn(content, { directory: world.directory, guild, canMentionEveryone: options.canMentionEveryone }, allowed, options.repliedAuthorId);
}

/** Files uploaded with a message (`readUploads`), kept by the CDN; their ids are snowflakes, as Discord's are. */
export function uploadAttachments(world: World, channel: ChannelRecord, files: readonly NewFile[]): APIAttachment[] {
  return files.map((file) => world.cdn.attach(channel.id, world.ids.next(), file.filename, file.bytes, { contentType: file.contentType }));
}

export interface PostInput {
  readonly authorId: string;
  readonly content: string;
  readonly embeds?: unknown[];
  readonly components?: unknown[];
  readonly attachments?: APIAttachment[];
  readonly flags?: number;
  readonly replyTo?: StoredMessage;
  readonly nonce?: string | number;
  readonly mentions: Mentions;
  readonly type?: number;
  readonly interaction?: StoredMessage["interaction"];
}

/** Keeps a new message and sends MESSAGE_CREATE (an ephemeral one reaches only its user: no dispatch). */
export function postMessage(world: World, channel: ChannelRecord, input: PostInput): StoredMessage {
  const stored = world.channels.store(channel, {
    authorId: input.authorId,
    type: input.type ?? (input.replyTo ? MESSAGE_TYPE.REPLY : MESSAGE_TYPE.DEFAULT),
    content: input.content,
    embeds: input.embeds ?? [],
    components: input.components ?? [],
    attachments: input.attachments ?? [],
    flags: input.flags ?? 0,
    mentionUserIds: input.mentions.userIds,
    mentionRoleIds: input.mentions.roleIds,
    mentionEveryone: input.mentions.everyone,
    reference: input.replyTo ? { messageId: input.replyTo.id, channelId: input.replyTo.channelId, guildId: channel.guildId } : undefined,
    nonce: input.nonce,
    interaction: input.interaction,
  });
  if (!isEphemeral(stored)) world.sessions.dispatch(messageEvent(world, "MESSAGE_CREATE", stored));
  return stored;
}

export interface MessageChange {
  readonly content?: string;
  readonly embeds?: unknown[];
  readonly components?: unknown[];
  readonly flags?: number;
  readonly attachments?: APIAttachment[];
  readonly mentions?: Mentions;
}

/** Applies an edit (the earlier content kept), refuses one that leaves the message empty, sends MESSAGE_UPDATE. */
export function changeMessage(world: World, stored: StoredMessage, change: MessageChange): void {
  const next = {
    content: change.content ?? stored.content,
    embeds: change.embeds ?? stored.embeds,
    components: change.components ?? stored.components,
    attachments: change.attachments ?? stored.attachments,
  };
  if (next.content === "" && next.embeds.length === 0 && next.components.length === 0 && next.attachments.length === 0) throw emptyMessage();
  if (change.content !== undefined) stored.earlierContents.push(stored.content);
  Object.assign(stored, next);
  if (change.flags !== undefined) stored.flags = change.flags;
  if (change.mentions) Object.assign(stored, { mentionUserIds: change.mentions.userIds, mentionRoleIds: change.mentions.roleIds, mentionEveryone: change.mentions.everyone });
  stored.editedAt = world.now();
  if (!isEphemeral(stored)) world.sessions.dispatch(messageEvent(world, "MESSAGE_UPDATE", stored));
}

export function isEphemeral(message: StoredMessage): boolean {
  return (message.flags & MESSAGE_FLAG.EPHEMERAL) !== 0;
}
