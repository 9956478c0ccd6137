import type { GatewayChannel, GatewaySender } from "../../../operators/ingress/gatewayEvent.js";
import { isDeniedUser } from "./deniedUser.js";
import { channelAllowed, type ChannelKind } from "./detectThread.js";
import { conversationOf } from "./interactionChannel.js";
import { eventChannel } from "./messageEvent.js";
import type { MessageGates } from "./messageVerdict.js";

/**
 * The most a tap's data may hold, in UTF-8 bytes: the broker's buttons carry at most 64
 * (`OutboundChoice.data`), so a longer `custom_id` is none of theirs (Discord's own bound is 100
 * characters).
 */
export const TAP_DATA_LIMIT_BYTES = 64;

/** One button interaction as the decision reads it; every field but the channel's kind came from the gateway untrusted. */
export interface TapFacts {
  readonly customId: unknown;
  readonly messageId: unknown;
  readonly user: { readonly id?: unknown; readonly username?: unknown; readonly global_name?: unknown; readonly bot?: unknown } | undefined;
  /** The tapper's guild nickname (`member.nick`). */
  readonly nick: unknown;
  readonly channel: ChannelKind;
  readonly botId: string;
}

export type TapDropReason =
  | "data_invalid"
  | "data_too_long"
  | "no_message"
  | "no_user"
  | "dm_not_allowed"
  | "channel_not_allowed"
  | "bot_messages_off"
  | "bot_not_trusted"
  | "denied_user"
  | "channel_unknown";

export type TapVerdict =
  /** `refused`: a gate said no to this person here, and they are told so; else the interaction was malformed. */
  | { readonly kind: "drop"; readonly reason: TapDropReason; readonly refused: boolean }
  | { readonly kind: "accept"; readonly data: string; readonly messageId: string; readonly channel: GatewayChannel; readonly sender: GatewaySender };

const SNOWFLAKE = /^\d{1,20}$/;

/**
 * Whether a tap on a button becomes an event, and where it belongs. Malformed first (the data not
 * a string of 1 to 64 bytes, no message, no user), then the gates a message meets where they
 * apply to a tap: DMs and the channel allow-list, the bot gate (`allow_bot_messages` off,
 * `trusted_bot_ids`) and `allowed_users`. The mention and participation gates do not: a tap on
 * the bot's own button is addressed to it. Its channel is the conversation's exactly as the
 * conversation's messages carry it (a thread: parent and thread; a DM), so it reaches the same
 * session; a button in a plain channel (a message the broker posted there) is that channel.
 */
export function tapVerdict(facts: TapFacts, gates: MessageGates): TapVerdict {
  const { customId, messageId, user } = facts;
  if (typeof customId !== "string" || customId === "") return drop("data_invalid", false);
  if (Buffer.byteLength(customId, "utf8") > TAP_DATA_LIMIT_BYTES) return drop("data_too_long", false);
  if (typeof messageId !== "string" || !SNOWFLAKE.test(messageId)) return drop("no_message", false);
  if (user === undefined || typeof user.id !== "string" || !SNOWFLAKE.test(user.id)) return drop("no_user", false);
  const isBot = user.bot === true;
  if (facts.channel.kind === "dm") {
    if (!gates.allowDm) return drop("dm_not_allowed", true);
  } else if (!channelAllowed(facts.channel, { allowAll: gates.allowAllChannels, allowedChannels: gates.allowedChannels }, facts.botId)) {
    return drop("channel_not_allowed", true);
  }
  if (isBot && gates.allowBotMessages === "off") return drop("bot_messages_off", true);
  if (isBot && gates.trustedBotIds.size > 0 && !gates.trustedBotIds.has(user.id)) return drop("bot_not_trusted", true);
  if (isDeniedUser({ id: user.id, isBot }, { allowAll: gates.allowAllUsers, allowedUsers: gates.allowedUsers })) return drop("denied_user", true);
  const channel = tapChannel(facts.channel);
  if (channel === undefined) return drop("channel_unknown", false);
  const username = typeof user.username === "string" ? user.username : "unknown";
  const display = [facts.nick, user.global_name, user.username].find((name): name is string => typeof name === "string" && name !== "") ?? "Unknown";
  return { kind: "accept", data: customId, messageId, channel, sender: { id: user.id, name: username, display_name: display, is_bot: isBot } };
}

function tapChannel(kind: ChannelKind): GatewayChannel | undefined {
  const conversation = conversationOf(kind);
  if (conversation !== undefined) return eventChannel(conversation);
  return kind.kind === "channel" ? { id: kind.id, type: "channel" } : undefined;
}

function drop(reason: TapDropReason, refused: boolean): TapVerdict {
  return { kind: "drop", reason, refused };
}
