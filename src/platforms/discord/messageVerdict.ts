import type { BotMessageMode, UserMessageMode } from "../../config/sections/chatGates.js";
import type { BotTurnVerdict } from "../botTurns.js";
import { isDeniedUser } from "./deniedUser.js";
import { channelAllowed, detectThread, type ChannelKind } from "./detectThread.js";
import { resolveMentions, textMentions } from "./mentions.js";
import { shouldCreateThread } from "./shouldCreateThread.js";
import { userGateReason, type UserGateReason } from "./userGate.js";

/** The `[discord]` keys the filter reads, resolved to sets. */
export interface MessageGates {
  readonly allowAllChannels: boolean;
  readonly allowedChannels: ReadonlySet<string>;
  readonly allowAllUsers: boolean;
  readonly allowedUsers: ReadonlySet<string>;
  readonly allowBotMessages: BotMessageMode;
  readonly trustedBotIds: ReadonlySet<string>;
  readonly allowUserMessages: UserMessageMode;
  readonly allowedRoleIds: ReadonlySet<string>;
  readonly allowDm: boolean;
}

/** What the bot's recent messages in a thread say (the participation check, §2.5). */
export interface Participation {
  readonly involved: boolean;
  readonly otherBot: boolean;
}

/** One MESSAGE_CREATE as the filter sees it, with what the port's caches and lookups said. */
export interface MessageFacts {
  readonly botId: string;
  readonly authorId: string;
  readonly authorIsBot: boolean;
  readonly content: string;
  readonly attachmentCount: number;
  readonly mentionedUserIds: readonly string[];
  readonly mentionedRoleIds: readonly string[];
  readonly channel: ChannelKind;
  /** For a bot author (this bot included): what the bot-turn counter said of this message. */
  readonly botTurn?: BotTurnVerdict;
  /** The multibot cache holds the message's channel. */
  readonly otherBotKnown: boolean;
  /** The participation check's answer, once the port ran it (it runs only when a verdict asks). */
  readonly participation?: Participation;
}

export type DropReason =
  | "bot_turn_limit"
  | "own_message"
  | "bot_messages_off"
  | "bot_not_mentioned"
  | "bot_not_trusted"
  | "dm_not_allowed"
  | "channel_not_allowed"
  | UserGateReason
  | "empty_prompt";

/** Where the answer goes: the thread or DM the message is in, or a thread to open from it. */
export type ReplyPlace =
  | { readonly kind: "dm"; readonly channelId: string }
  | { readonly kind: "thread"; readonly parentId: string; readonly threadId: string }
  | { readonly kind: "new-thread"; readonly parentId: string };

export type MessageVerdict =
  | { readonly kind: "drop"; readonly reason: DropReason }
  /** Run the participation check for the message's channel, then decide again with its answer. */
  | { readonly kind: "needs-participation" }
  /** A bot message at a turn limit: post `text` in the channel when `post`, and start no turn. */
  | { readonly kind: "turn-limit"; readonly reason: "bot_turn_limit"; readonly limit: "soft" | "hard"; readonly text: string; readonly post: boolean }
  /** A human outside `allowed_users` who addressed the bot: 🚫 on the message, no turn. */
  | { readonly kind: "deny"; readonly reason: "denied_user" }
  | { readonly kind: "accept"; readonly prompt: string; readonly place: ReplyPlace; readonly otherBotPresent: boolean };

/**
 * OpenAB's filter order for an incoming Discord message (§2.3), as one pure decision: turn limits,
 * own messages, mentions, the bot gate, the DM and channel gates, the user-message gate, the user
 * allow-list, the prompt, and where the reply goes. The participation check is a REST fetch, so
 * the port runs it only when this asks (`needs-participation`) and decides again.
 *
 * Not built: `all` mode's "1000 consecutive bot messages" history cap, which upstream's own fetch
 * of at most 100 messages can never reach (§2.3 step 5, §7 item 2); the turn counter limits instead.
 */
export function messageVerdict(facts: MessageFacts, gates: MessageGates): MessageVerdict {
  const own = facts.authorId === facts.botId;
  const allowance = { allowAll: gates.allowAllChannels, allowedChannels: gates.allowedChannels };
  const turn = facts.botTurn;
  if (facts.authorIsBot && turn !== undefined) {
    if (turn.action === "silent-stop") return { kind: "drop", reason: "bot_turn_limit" };
    if (turn.action === "warn-and-stop") {
      const eligible = !own && channelAllowed(facts.channel, allowance, facts.botId);
      if (eligible && facts.participation === undefined) return { kind: "needs-participation" };
      return { kind: "turn-limit", reason: "bot_turn_limit", limit: turn.limit, text: turn.text, post: eligible && facts.participation?.involved === true };
    }
  }
  if (own) return { kind: "drop", reason: "own_message" };
  const mentioned = isMentioned(facts, gates.allowedRoleIds);
  if (facts.authorIsBot) {
    if (gates.allowBotMessages === "off") return { kind: "drop", reason: "bot_messages_off" };
    if (gates.allowBotMessages === "mentions" && !mentioned) return { kind: "drop", reason: "bot_not_mentioned" };
    if (gates.trustedBotIds.size > 0 && !gates.trustedBotIds.has(facts.authorId)) return { kind: "drop", reason: "bot_not_trusted" };
  }
  const isDm = facts.channel.kind === "dm";
  const thread = detectThread(facts.channel, allowance, facts.botId);
  if (isDm && !gates.allowDm) return { kind: "drop", reason: "dm_not_allowed" };
  if (!isDm && !channelAllowed(facts.channel, allowance, facts.botId)) return { kind: "drop", reason: "channel_not_allowed" };
  if (!mentioned && !isDm) {
    const cheap = userGateReason({ mode: gates.allowUserMessages, mentioned: false, inThread: thread.inThread, involved: true, otherBot: false });
    if (cheap !== undefined) return { kind: "drop", reason: cheap };
    // `involved` passes a thread the bot owns without a fetch; `multibot-mentions` always asks.
    const ownsIt = thread.botOwnsThread === true;
    if (!(ownsIt && gates.allowUserMessages === "involved")) {
      if (facts.participation === undefined) return { kind: "needs-participation" };
      const reason = userGateReason({
        mode: gates.allowUserMessages,
        mentioned: false,
        inThread: thread.inThread,
        involved: ownsIt || facts.participation.involved,
        otherBot: facts.otherBotKnown || facts.participation.otherBot,
      });
      if (reason !== undefined) return { kind: "drop", reason };
    }
  }
  if (isDeniedUser({ id: facts.authorId, isBot: facts.authorIsBot }, { allowAll: gates.allowAllUsers, allowedUsers: gates.allowedUsers })) return { kind: "deny", reason: "denied_user" };
  const prompt = resolveMentions(facts.content, facts.botId, gates.allowedRoleIds);
  if (prompt === "" && facts.attachmentCount === 0) return { kind: "drop", reason: "empty_prompt" };
  return { kind: "accept", prompt, place: replyPlace(facts.channel, isDm), otherBotPresent: facts.otherBotKnown };
}

/** §2.3 step 4: the bot in the mention list or the text, or an allowed role mentioned. */
export function isMentioned(facts: Pick<MessageFacts, "botId" | "content" | "mentionedUserIds" | "mentionedRoleIds">, allowedRoleIds: ReadonlySet<string>): boolean {
  if (facts.mentionedUserIds.includes(facts.botId) || textMentions(facts.content, facts.botId)) return true;
  return allowedRoleIds.size > 0 && facts.mentionedRoleIds.some((role) => allowedRoleIds.has(role));
}

function replyPlace(channel: ChannelKind, isDm: boolean): ReplyPlace {
  if (isDm) return { kind: "dm", channelId: channel.id };
  if (!shouldCreateThread(channel.kind === "thread", isDm)) {
    const parentId = channel.kind === "thread" ? (channel.parentId ?? channel.id) : channel.id;
    return { kind: "thread", parentId, threadId: channel.id };
  }
  return { kind: "new-thread", parentId: channel.id };
}

/** §2.3 step 2, for a human: a regular message or an inline reply with text resets the thread's bot turns. */
export function resetsBotTurns(message: { readonly authorIsBot: boolean; readonly type: number; readonly content: string }): boolean {
  return !message.authorIsBot && (message.type === MESSAGE_TYPE_DEFAULT || message.type === MESSAGE_TYPE_REPLY) && message.content !== "";
}

const MESSAGE_TYPE_DEFAULT = 0;
const MESSAGE_TYPE_REPLY = 19;
