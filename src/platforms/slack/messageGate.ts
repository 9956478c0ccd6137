import type { BotMessageMode, UserMessageMode } from "../../config/sections/chatGates.js";
import type { BotTurnVerdict } from "../botTurns.js";
import type { Participation } from "./threadReplies.js";

/** Subtypes a `message` event is dropped for at once (§3.3 step 1); others (`pinned_item`…) go on. */
const IGNORED_SUBTYPES: ReadonlySet<string> = new Set(["message_changed", "message_deleted", "channel_join", "channel_leave", "channel_topic", "channel_purpose"]);

/** Upstream's cap on a thread's newest bot messages in a row under `allow_bot_messages = "all"`. */
export const BOT_RUN_CAP = 1000;

/** The `[slack]` keys the gate reads. */
export interface MessageGateConfig {
  readonly allow_bot_messages: BotMessageMode;
  readonly allow_user_messages: UserMessageMode;
  /** Whether `trusted_bot_ids` lists any bot: then only those pass the bot gate. */
  readonly trustsSomeBots: boolean;
}

/**
 * One incoming `message` or `app_mention` event, as plain facts. What needs a call or the adapter's
 * state is absent until looked up: the gate asks for it (`need`) only when its rules reach it.
 */
export interface MessageFacts {
  readonly kind: "message" | "app_mention";
  /** `""` when the message has none. */
  readonly subtype: string;
  /** `thread_ts` is present: the message is a reply in a thread. */
  readonly inThread: boolean;
  /** `bot_id` is present, or the subtype is `bot_message`. */
  readonly isBot: boolean;
  /** A bot message whose `user` is this bot. */
  readonly isOwn: boolean;
  readonly mentionsBot: boolean;
  /** The channel id starts with `D`. */
  readonly isDm: boolean;
  /** `channel`, `user` (or `bot_id`), `text` and `ts` are all there (§3.4 step 1). */
  readonly complete: boolean;
  readonly channelAllowed: boolean;
  /** The sender is a human on the allow-list (or everyone is allowed); not read for bots. */
  readonly userAllowed: boolean;
  /** The prompt (mentions of the bot removed) is empty and the message has no files. */
  readonly empty: boolean;
  /** Another bot is already known in the thread (the adapter's multibot note). */
  readonly otherBotKnown: boolean;
  /** `message` events: the bot-turn counters' verdict for a bot message (§2.6); counted or reset once the gate asks. */
  readonly botTurn?: BotTurnVerdict;
  /** `all` mode: how many of the thread's newest messages in a row are bots'; `"failed"` when the thread could not be read. */
  readonly botRun?: number | "failed";
  /** `trusted_bot_ids` lists this bot (its `bot_id`, or its user id as upstream resolves it). */
  readonly trustedBot?: boolean;
  /** The thread's participation check (§3.5); `"failed"` when the thread could not be read (fail-closed). */
  readonly participation?: Participation | "failed";
}

/** A fact the gate needs before it can decide. */
export type GateFact = "botTurn" | "botRun" | "trustedBot" | "participation";

/** Why an event starts no turn: stable, for the `reason` of its log line. */
export type GateDropReason =
  | "ignored_subtype"
  | "bot_turn_limit"
  | "own_message"
  | "mention_handled_by_app_mention"
  | "bot_messages_off"
  | "bot_not_mentioned"
  | "bot_run_cap"
  | "thread_unreadable"
  | "bot_not_trusted"
  | "bot_not_in_thread"
  | "not_mentioned"
  | "not_in_thread"
  | "not_involved"
  | "multibot_without_mention"
  | "incomplete"
  | "channel_not_allowed"
  | "empty";

export type GateVerdict =
  | { readonly kind: "need"; readonly fact: GateFact }
  | { readonly kind: "accept" }
  /** A person not on `allowed_users` addressed the bot: 🚫 on their message, no turn. */
  | { readonly kind: "deny"; readonly reason: "user_not_allowed" }
  /** Dropped; `warning` is the bot-turn limit text to post in the thread, when it is due there. */
  | { readonly kind: "drop"; readonly reason: GateDropReason; readonly warning?: string };

/**
 * OpenAB's order for an incoming Slack event, as one decision (§3.3 for `message`, §3.4 for
 * `app_mention`, then the shared `handle_message` checks). Pure: call it with what is known; when
 * it answers `need`, look that fact up (count the bot turn, read the thread, resolve the bot) and
 * call it again with the fact added. Facts are asked for only where upstream's rules reach them, so
 * a message dropped early costs no call.
 *
 * Two differences from upstream, both where it drops nothing a person expects to be answered:
 * - `app_mention` from this bot itself is dropped (`own_message`); upstream checks this only for
 *   `message`, and a reply that mentions its own bot would start a turn on itself.
 * - A thread that cannot be read fails closed for every check that reads it, as upstream.
 */
export function gateVerdict(facts: MessageFacts, config: MessageGateConfig): GateVerdict {
  const early = facts.kind === "message" ? messageRules(facts, config) : appMentionRules(facts, config);
  return early ?? handleMessageRules(facts);
}

/** §3.3 steps 1–7. */
function messageRules(facts: MessageFacts, config: MessageGateConfig): GateVerdict | undefined {
  if (IGNORED_SUBTYPES.has(facts.subtype)) return drop("ignored_subtype");
  // Step 3: every bot message is counted, every plain human message resets (the adapter does both when asked).
  if (facts.botTurn === undefined) return { kind: "need", fact: "botTurn" };
  if (facts.isBot && facts.botTurn.action === "silent-stop") return drop("bot_turn_limit");
  if (facts.isBot && facts.botTurn.action === "warn-and-stop") {
    // Posted only for another bot's message in an allowed channel (no participation check, as upstream).
    return !facts.isOwn && facts.channelAllowed ? { kind: "drop", reason: "bot_turn_limit", warning: facts.botTurn.text } : drop("bot_turn_limit");
  }
  if (facts.isOwn) return drop("own_message");
  if (facts.mentionsBot && !facts.isDm) return drop("mention_handled_by_app_mention");
  if (facts.isBot) return botGate(facts, config);
  if (facts.isDm) return undefined;
  return userGate(facts, config);
}

/** §3.4: a bot's `app_mention` passes the mode and the trusted list; nothing else gates a mention. */
function appMentionRules(facts: MessageFacts, config: MessageGateConfig): GateVerdict | undefined {
  if (!facts.isBot) return undefined;
  if (facts.isOwn) return drop("own_message");
  if (config.allow_bot_messages === "off") return drop("bot_messages_off");
  return trustedBotRule(facts, config);
}

/** §3.3 step 6, for a bot's `message`. */
function botGate(facts: MessageFacts, config: MessageGateConfig): GateVerdict | undefined {
  const mode = config.allow_bot_messages;
  if (mode === "off") return drop("bot_messages_off");
  if (mode === "mentions" && !facts.mentionsBot) return drop("bot_not_mentioned");
  if (mode === "all" && facts.inThread) {
    if (facts.botRun === undefined) return { kind: "need", fact: "botRun" };
    if (facts.botRun === "failed") return drop("thread_unreadable");
    if (facts.botRun >= BOT_RUN_CAP) return drop("bot_run_cap");
  }
  const trusted = trustedBotRule(facts, config);
  if (trusted !== undefined) return trusted;
  // Bot messages must be in a thread: a top-level one is dropped (DMs too, as upstream).
  if (!facts.inThread) return drop("bot_not_in_thread");
  return undefined;
}

function trustedBotRule(facts: MessageFacts, config: MessageGateConfig): GateVerdict | undefined {
  if (!config.trustsSomeBots) return undefined;
  if (facts.trustedBot === undefined) return { kind: "need", fact: "trustedBot" };
  return facts.trustedBot ? undefined : drop("bot_not_trusted");
}

/** §3.3 step 7, for a person's unmentioned `message` outside a DM. */
function userGate(facts: MessageFacts, config: MessageGateConfig): GateVerdict | undefined {
  const mode = config.allow_user_messages;
  if (mode === "mentions") return drop("not_mentioned");
  if (!facts.inThread) return drop("not_in_thread");
  if (facts.participation === undefined) return { kind: "need", fact: "participation" };
  if (facts.participation === "failed") return drop("thread_unreadable");
  if (!facts.participation.involved) return drop("not_involved");
  if (mode === "multibot-mentions" && (facts.otherBotKnown || facts.participation.otherBot)) return drop("multibot_without_mention");
  return undefined;
}

/** `handle_message` steps 1–4, both paths. */
function handleMessageRules(facts: MessageFacts): GateVerdict {
  if (!facts.complete) return drop("incomplete");
  if (!facts.channelAllowed) return drop("channel_not_allowed");
  if (!facts.isBot && !facts.userAllowed) return { kind: "deny", reason: "user_not_allowed" };
  if (facts.empty) return drop("empty");
  return { kind: "accept" };
}

function drop(reason: GateDropReason): GateVerdict {
  return { kind: "drop", reason };
}
