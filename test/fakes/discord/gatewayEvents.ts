import { channelObject, guildCreateObject, memberObject, messageObject, userObject } from "./apiObjects.js";
import type { ChannelRecord, StoredMessage, StoredReaction } from "./channels.js";
import type { FakeGuild } from "./directory.js";
import type { GatewayEvent } from "./gatewaySessions.js";
import { INTENT, messageIntent, reactionIntent } from "./intents.js";
import { isoTimestamp } from "./snowflakes.js";
import { sessionReadable, type World } from "./world.js";

/** The dispatches the fake sends, each with the intent Discord ties it to (docs: Events › Gateway Events). */

export function messageEvent(world: World, t: "MESSAGE_CREATE" | "MESSAGE_UPDATE", message: StoredMessage): GatewayEvent {
  const guildId = world.channels.find(message.channelId)?.guildId;
  return { t, guildId, intent: messageIntent(guildId), data: (session) => messageObject(message, world, { gateway: true, readable: sessionReadable(world, session) }) };
}

export function messageDeleteEvent(world: World, message: StoredMessage): GatewayEvent {
  const guildId = world.channels.find(message.channelId)?.guildId;
  return { t: "MESSAGE_DELETE", guildId, intent: messageIntent(guildId), data: () => ({ id: message.id, channel_id: message.channelId, ...(guildId ? { guild_id: guildId } : {}) }) };
}

export function reactionEvent(world: World, t: "MESSAGE_REACTION_ADD" | "MESSAGE_REACTION_REMOVE", message: StoredMessage, reaction: StoredReaction, userId: string): GatewayEvent {
  const guild = guildOf(world, message.channelId);
  const member = guild?.members.get(userId);
  return {
    t,
    guildId: guild?.id,
    intent: reactionIntent(guild?.id),
    data: () => ({
      user_id: userId,
      channel_id: message.channelId,
      message_id: message.id,
      ...(guild ? { guild_id: guild.id } : {}),
      ...(t === "MESSAGE_REACTION_ADD" && member ? { member: memberObject(member, world.directory, true) } : {}),
      ...(t === "MESSAGE_REACTION_ADD" ? { message_author_id: message.authorId } : {}),
      emoji: { id: reaction.emoji.id, name: reaction.emoji.name },
      burst: false,
      type: 0,
      ...(t === "MESSAGE_REACTION_ADD" ? { burst_colors: [] } : {}),
    }),
  };
}

/** THREAD_CREATE for a new thread: the channel with `newly_created`, and the creator's thread member. */
export function threadCreateEvent(world: World, thread: ChannelRecord): GatewayEvent {
  return {
    t: "THREAD_CREATE",
    guildId: thread.guildId,
    intent: INTENT.GUILDS,
    data: () => ({
      ...channelObject(thread, world),
      newly_created: true,
      ...(thread.thread!.memberIds.has(world.bot.id) ? { member: { id: thread.id, user_id: world.bot.id, join_timestamp: isoTimestamp(thread.thread!.createdAt), flags: 1 } } : {}),
    }),
  };
}

export function interactionCreateEvent(guildId: string | undefined, interaction: object): GatewayEvent {
  return { t: "INTERACTION_CREATE", guildId, intent: 0, data: () => interaction };
}

/** READY's data for a new session (docs: Events › Gateway Events › Ready). */
export function readyData(world: World, sessionId: string, shard: readonly [number, number] | undefined, resumeGatewayUrl: string, guilds: readonly FakeGuild[]): object {
  return {
    v: 10,
    user: { ...userObject(world.bot), verified: true, mfa_enabled: false, email: null },
    guilds: guilds.map((guild) => ({ id: guild.id, unavailable: true })),
    session_id: sessionId,
    session_type: "normal",
    resume_gateway_url: resumeGatewayUrl,
    ...(shard ? { shard: [...shard] } : {}),
    application: { id: world.applicationId, flags: 0 },
    private_channels: [],
    presences: [],
    relationships: [],
    guild_join_requests: [],
    geo_ordered_rtc_regions: [],
    auth: {},
    user_settings: {},
  };
}

export function guildCreateData(world: World, guild: FakeGuild, intents: number): object {
  return guildCreateObject(guild, world, (intents & INTENT.GUILD_PRESENCES) !== 0);
}

function guildOf(world: World, channelId: string): FakeGuild | undefined {
  const guildId = world.channels.find(channelId)?.guildId;
  return guildId ? world.directory.findGuild(guildId) : undefined;
}
