import { CHANNEL_TYPE, type Channels, type StoredMessage } from "./channels.js";

/** Gateway intents (docs: Events › Gateway › List of Intents). */
export const INTENT = {
  GUILDS: 1 << 0,
  GUILD_MEMBERS: 1 << 1,
  GUILD_MODERATION: 1 << 2,
  GUILD_EXPRESSIONS: 1 << 3,
  GUILD_INTEGRATIONS: 1 << 4,
  GUILD_WEBHOOKS: 1 << 5,
  GUILD_INVITES: 1 << 6,
  GUILD_VOICE_STATES: 1 << 7,
  GUILD_PRESENCES: 1 << 8,
  GUILD_MESSAGES: 1 << 9,
  GUILD_MESSAGE_REACTIONS: 1 << 10,
  GUILD_MESSAGE_TYPING: 1 << 11,
  DIRECT_MESSAGES: 1 << 12,
  DIRECT_MESSAGE_REACTIONS: 1 << 13,
  DIRECT_MESSAGE_TYPING: 1 << 14,
  MESSAGE_CONTENT: 1 << 15,
  GUILD_SCHEDULED_EVENTS: 1 << 16,
  AUTO_MODERATION_CONFIGURATION: 1 << 20,
  AUTO_MODERATION_EXECUTION: 1 << 21,
  GUILD_MESSAGE_POLLS: 1 << 24,
  DIRECT_MESSAGE_POLLS: 1 << 25,
} as const;

/** Every bit Discord defines; any other bit in IDENTIFY is closed with 4013 Invalid intent(s). */
export const KNOWN_INTENTS = Object.values(INTENT).reduce((all, bit) => all | bit, 0);

/** Intents an app must enable in the Developer Portal first; asked for without that, 4014 Disallowed intent(s). */
export const PRIVILEGED_INTENTS = INTENT.GUILD_MEMBERS | INTENT.GUILD_PRESENCES | INTENT.MESSAGE_CONTENT;

/** Why IDENTIFY's intents are refused, as a close code, or undefined when they are fine. */
export function intentsRefusal(intents: unknown, enabledPrivileged: number): 4013 | 4014 | undefined {
  if (typeof intents !== "number" || !Number.isSafeInteger(intents) || intents < 0 || (intents & ~KNOWN_INTENTS) !== 0) return 4013;
  if ((intents & PRIVILEGED_INTENTS & ~enabledPrivileged) !== 0) return 4014;
  return undefined;
}

/** The intent a message event needs: GUILD_MESSAGES in a guild (threads included), DIRECT_MESSAGES in a DM. */
export function messageIntent(guildId: string | undefined): number {
  return guildId === undefined ? INTENT.DIRECT_MESSAGES : INTENT.GUILD_MESSAGES;
}

export function reactionIntent(guildId: string | undefined): number {
  return guildId === undefined ? INTENT.DIRECT_MESSAGE_REACTIONS : INTENT.GUILD_MESSAGE_REACTIONS;
}

/**
 * Whether a reader sees a message's content, embeds, attachments and components. With MESSAGE_CONTENT,
 * always; without it only in its own messages, in DMs, and in messages that mention it (docs: Events ›
 * Gateway › Message Content Intent). Other messages arrive with those fields empty.
 */
export function contentVisible(message: StoredMessage, channels: Channels, botId: string, hasMessageContent: boolean): boolean {
  if (hasMessageContent || message.authorId === botId || message.mentionUserIds.includes(botId)) return true;
  return channels.find(message.channelId)?.type === CHANNEL_TYPE.DM;
}
