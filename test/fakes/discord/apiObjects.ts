import type { APIChannel, APIGuildMember, APIMessage, APIRole, APIUser } from "@discordjs/core";
import { CHANNEL_TYPE, type ChannelRecord, type Channels, type StoredMessage } from "./channels.js";
import type { Directory, FakeGuild, FakeMember, FakeRole, FakeUser } from "./directory.js";
import { isoTimestamp } from "./snowflakes.js";

/** What rendering needs to look up: users, guilds and channels. */
export interface Lookup {
  readonly directory: Directory;
  readonly channels: Channels;
}

/** A user object (docs: Resources › User), as messages, members and `GET /users/{id}` carry it. */
export function userObject(user: FakeUser): APIUser {
  return {
    id: user.id,
    username: user.username,
    discriminator: "0",
    global_name: user.global_name,
    avatar: null,
    ...(user.bot ? { bot: true } : {}),
    public_flags: 0,
    flags: 0,
    banner: null,
    accent_color: null,
    avatar_decoration_data: null,
  } as unknown as APIUser;
}

/** A guild member; `withUser` false gives the partial member a MESSAGE_CREATE's `member` carries. */
export function memberObject(member: FakeMember, directory: Directory, withUser: boolean): APIGuildMember {
  const user = directory.user(member.userId);
  return {
    ...(withUser && user ? { user: userObject(user) } : {}),
    nick: member.nick,
    avatar: null,
    banner: null,
    roles: [...member.roles],
    joined_at: isoTimestamp(member.joinedAt),
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  } as unknown as APIGuildMember;
}

export function roleObject(role: FakeRole): APIRole {
  return {
    id: role.id,
    name: role.name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position: role.position,
    permissions: role.permissions,
    managed: role.botId !== undefined,
    mentionable: role.mentionable,
    flags: 0,
    ...(role.botId !== undefined ? { tags: { bot_id: role.botId } } : {}),
  } as unknown as APIRole;
}

/** A channel object (docs: Resources › Channel): text, category, forum, thread or DM. */
export function channelObject(channel: ChannelRecord, lookup: Lookup): APIChannel {
  if (channel.type === CHANNEL_TYPE.DM) {
    const recipient = lookup.directory.user(channel.recipientId!);
    return { id: channel.id, type: channel.type, last_message_id: channel.lastMessageId, flags: 0, recipients: recipient ? [userObject(recipient)] : [] } as unknown as APIChannel;
  }
  const base = { id: channel.id, type: channel.type, guild_id: channel.guildId, name: channel.name, flags: 0 };
  if (channel.thread) {
    const { thread } = channel;
    const messages = [...channel.messages.values()];
    return {
      ...base,
      parent_id: channel.parentId,
      owner_id: thread.ownerId,
      last_message_id: channel.lastMessageId,
      rate_limit_per_user: 0,
      message_count: messages.filter((message) => !message.deleted).length,
      total_message_sent: messages.length,
      member_count: Math.min(thread.memberIds.size, 50),
      thread_metadata: {
        archived: thread.archived,
        auto_archive_duration: thread.autoArchiveDuration,
        archive_timestamp: isoTimestamp(thread.createdAt),
        locked: thread.locked,
        create_timestamp: isoTimestamp(thread.createdAt),
        ...(channel.type === CHANNEL_TYPE.PRIVATE_THREAD ? { invitable: true } : {}),
      },
    } as APIChannel;
  }
  const position = lookup.channels.all().filter((each) => each.guildId === channel.guildId && !each.thread && each.type === channel.type).indexOf(channel);
  const common = { ...base, position, parent_id: channel.parentId ?? null, permission_overwrites: [], nsfw: false };
  if (channel.type === CHANNEL_TYPE.GUILD_CATEGORY) return common as APIChannel;
  const text = { ...common, topic: null, last_message_id: channel.lastMessageId, rate_limit_per_user: 0 };
  if (channel.type === CHANNEL_TYPE.GUILD_FORUM) return { ...text, available_tags: [], default_reaction_emoji: null, default_sort_order: null, default_forum_layout: 0, default_thread_rate_limit_per_user: 0 } as APIChannel;
  return text as APIChannel;
}

export interface MessageRendering {
  /** False when the reader lacks MESSAGE_CONTENT for a message: content, embeds, attachments, components empty. */
  readonly readable: (message: StoredMessage) => boolean;
  /** A gateway MESSAGE_CREATE/UPDATE: adds `guild_id`, the author's `member` and each mention's `member`. */
  readonly gateway: boolean;
}

/** A message object (docs: Resources › Message), its reply's `referenced_message` one level deep. */
export function messageObject(stored: StoredMessage, lookup: Lookup, rendering: MessageRendering, depth = 0): APIMessage {
  const { directory, channels } = lookup;
  const channel = channels.find(stored.channelId);
  const guild = channel?.guildId ? directory.findGuild(channel.guildId) : undefined;
  const author = directory.user(stored.authorId);
  const mention = (id: string) => {
    const user = directory.user(id);
    const member = guild?.members.get(id);
    return { ...(user ? userObject(user) : { id }), ...(rendering.gateway && member ? { member: memberObject(member, directory, false) } : {}) };
  };
  const referenced = stored.reference ? channels.find(stored.reference.channelId)?.messages.get(stored.reference.messageId) : undefined;
  const thread = stored.threadId ? channels.find(stored.threadId) : undefined;
  const readable = rendering.readable(stored);
  const message: Record<string, unknown> = {
    type: stored.type,
    content: readable ? stored.content : "",
    mentions: stored.mentionUserIds.map(mention),
    mention_roles: [...stored.mentionRoleIds],
    attachments: readable ? stored.attachments : [],
    embeds: readable ? stored.embeds : [],
    timestamp: isoTimestamp(stored.createdAt),
    edited_timestamp: stored.editedAt === null ? null : isoTimestamp(stored.editedAt),
    flags: stored.flags,
    components: readable ? stored.components : [],
    id: stored.id,
    channel_id: stored.channelId,
    author: author ? userObject(author) : { id: stored.authorId },
    pinned: false,
    mention_everyone: stored.mentionEveryone,
    tts: false,
  };
  if (stored.nonce !== undefined) message.nonce = stored.nonce;
  if (stored.reactions.size > 0) message.reactions = reactionObjects(stored, directory.bot.id);
  if (stored.reference) {
    message.message_reference = { type: 0, channel_id: stored.reference.channelId, message_id: stored.reference.messageId, ...(stored.reference.guildId ? { guild_id: stored.reference.guildId } : {}) };
    if (depth === 0) message.referenced_message = referenced && !referenced.deleted ? messageObject(referenced, lookup, { ...rendering, gateway: false }, 1) : null;
  }
  if (stored.interaction) {
    const user = directory.user(stored.interaction.userId);
    const invoker = user ? userObject(user) : { id: stored.interaction.userId };
    message.application_id = directory.bot.id;
    message.interaction_metadata = { id: stored.interaction.id, type: stored.interaction.type, user: invoker, authorizing_integration_owners: guild ? { "0": guild.id } : { "0": "0" } };
    if (stored.interaction.name !== undefined) message.interaction = { id: stored.interaction.id, type: stored.interaction.type, name: stored.interaction.name, user: invoker };
  }
  if (thread) message.thread = channelObject(thread, lookup);
  if (channel?.thread) message.position = [...channel.messages.keys()].indexOf(stored.id);
  if (rendering.gateway) {
    if (guild) {
      message.guild_id = guild.id;
      const member = guild.members.get(stored.authorId);
      if (member) message.member = memberObject(member, directory, false);
    }
    if (channel) message.channel_type = channel.type;
  }
  return message as unknown as APIMessage;
}

function reactionObjects(stored: StoredMessage, botId: string): unknown[] {
  return [...stored.reactions.values()]
    .filter((reaction) => reaction.users.size > 0)
    .map((reaction) => ({
      emoji: { id: reaction.emoji.id, name: reaction.emoji.name },
      count: reaction.users.size,
      count_details: { burst: 0, normal: reaction.users.size },
      burst_colors: [],
      me_burst: false,
      burst_me: false,
      me: reaction.users.has(botId),
      burst_count: 0,
    }));
}

/** A guild as GUILD_CREATE carries it: roles, emoji, channels, active threads, and members (the bot alone
 * unless the session has GUILD_PRESENCES, as Discord sends them). */
export function guildCreateObject(guild: FakeGuild, lookup: Lookup, allMembers: boolean): Record<string, unknown> {
  const channels = lookup.channels.all().filter((channel) => channel.guildId === guild.id);
  const members = [...guild.members.values()].filter((member) => allMembers || member.userId === lookup.directory.bot.id);
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    owner_id: guild.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    roles: [...guild.roles.values()].map(roleObject),
    emojis: [...guild.emojis.values()].map((emoji) => ({ id: emoji.id, name: emoji.name, roles: [], require_colons: true, managed: false, animated: false, available: true })),
    features: [],
    mfa_level: 0,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: 0,
    preferred_locale: "en-US",
    public_updates_channel_id: null,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    stickers: [],
    joined_at: isoTimestamp(guild.joinedAt),
    large: false,
    unavailable: false,
    member_count: guild.members.size,
    voice_states: [],
    members: members.map((member) => memberObject(member, lookup.directory, true)),
    channels: channels.filter((channel) => !channel.thread).map((channel) => channelObject(channel, lookup)),
    threads: channels.filter((channel) => channel.thread && !channel.thread.archived).map((channel) => channelObject(channel, lookup)),
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}
