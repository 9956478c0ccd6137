import { describe, expect, it } from "vitest";
import { BOT_RUN_CAP, gateVerdict, type MessageFacts, type MessageGateConfig } from "../../../src/platforms/slack/messageGate.js";

const config: MessageGateConfig = { allow_bot_messages: "off", allow_user_messages: "involved", trustsSomeBots: false };
const cont = { action: "continue" } as const;

/** A person's plain reply in a thread of an allowed channel, counted. */
function human(overrides: Partial<MessageFacts> = {}): MessageFacts {
  return {
    kind: "message",
    subtype: "",
    inThread: true,
    isBot: false,
    isOwn: false,
    mentionsBot: false,
    isDm: false,
    complete: true,
    channelAllowed: true,
    userAllowed: true,
    empty: false,
    otherBotKnown: false,
    botTurn: cont,
    ...overrides,
  };
}

function bot(overrides: Partial<MessageFacts> = {}): MessageFacts {
  return human({ isBot: true, ...overrides });
}

describe("gateVerdict: message events (§3.3)", () => {
  it("drops the ignored subtypes before counting anything; other subtypes are counted", () => {
    for (const subtype of ["message_changed", "message_deleted", "channel_join", "channel_leave", "channel_topic", "channel_purpose"]) {
      expect(gateVerdict(human({ subtype, botTurn: undefined }), config)).toEqual({ kind: "drop", reason: "ignored_subtype" });
    }
    expect(gateVerdict(human({ subtype: "pinned_item", botTurn: undefined }), config)).toEqual({ kind: "need", fact: "botTurn" });
  });

  it("asks for the bot-turn count of every message, human or bot", () => {
    expect(gateVerdict(human({ botTurn: undefined }), config)).toEqual({ kind: "need", fact: "botTurn" });
    expect(gateVerdict(bot({ botTurn: undefined }), config)).toEqual({ kind: "need", fact: "botTurn" });
  });

  it("stops a bot over its turn limit, posting the warning only for another bot in an allowed channel", () => {
    const warn = { action: "warn-and-stop", limit: "soft", turns: 3, text: "⚠️ limit" } as const;
    expect(gateVerdict(bot({ botTurn: { action: "silent-stop" } }), config)).toEqual({ kind: "drop", reason: "bot_turn_limit" });
    expect(gateVerdict(bot({ botTurn: warn }), config)).toEqual({ kind: "drop", reason: "bot_turn_limit", warning: "⚠️ limit" });
    expect(gateVerdict(bot({ botTurn: warn, isOwn: true }), config)).toEqual({ kind: "drop", reason: "bot_turn_limit" });
    expect(gateVerdict(bot({ botTurn: warn, channelAllowed: false }), config)).toEqual({ kind: "drop", reason: "bot_turn_limit" });
  });

  it("drops its own messages, and channel mentions (app_mention answers those)", () => {
    expect(gateVerdict(bot({ isOwn: true }), { ...config, allow_bot_messages: "all" })).toEqual({ kind: "drop", reason: "own_message" });
    expect(gateVerdict(human({ mentionsBot: true }), config)).toEqual({ kind: "drop", reason: "mention_handled_by_app_mention" });
    expect(gateVerdict(human({ mentionsBot: true, isDm: true, inThread: false }), config)).toEqual({ kind: "accept" });
  });

  it("bot gate: off, mentions, all with the thread's bot run (fail-closed), trusted list, threads only", () => {
    expect(gateVerdict(bot(), config)).toEqual({ kind: "drop", reason: "bot_messages_off" });
    const mentions = { ...config, allow_bot_messages: "mentions" } as const;
    expect(gateVerdict(bot(), mentions)).toEqual({ kind: "drop", reason: "bot_not_mentioned" });
    expect(gateVerdict(bot({ isDm: true, mentionsBot: true }), mentions)).toEqual({ kind: "accept" });
    const all = { ...config, allow_bot_messages: "all" } as const;
    expect(gateVerdict(bot(), all)).toEqual({ kind: "need", fact: "botRun" });
    expect(gateVerdict(bot({ botRun: "failed" }), all)).toEqual({ kind: "drop", reason: "thread_unreadable" });
    expect(gateVerdict(bot({ botRun: BOT_RUN_CAP }), all)).toEqual({ kind: "drop", reason: "bot_run_cap" });
    expect(gateVerdict(bot({ botRun: BOT_RUN_CAP - 1 }), all)).toEqual({ kind: "accept" });
    const trusting = { ...all, trustsSomeBots: true };
    expect(gateVerdict(bot({ botRun: 1 }), trusting)).toEqual({ kind: "need", fact: "trustedBot" });
    expect(gateVerdict(bot({ botRun: 1, trustedBot: false }), trusting)).toEqual({ kind: "drop", reason: "bot_not_trusted" });
    expect(gateVerdict(bot({ botRun: 1, trustedBot: true }), trusting)).toEqual({ kind: "accept" });
    expect(gateVerdict(bot({ inThread: false }), all)).toEqual({ kind: "drop", reason: "bot_not_in_thread" });
  });

  it("a bot's message skips the user gate and the user allow-list", () => {
    const all = { ...config, allow_bot_messages: "all", allow_user_messages: "mentions" } as const;
    expect(gateVerdict(bot({ botRun: 1, userAllowed: false }), all)).toEqual({ kind: "accept" });
  });

  it("user gate: mentions drops, involved needs a thread the bot is in (fail-closed)", () => {
    expect(gateVerdict(human(), { ...config, allow_user_messages: "mentions" })).toEqual({ kind: "drop", reason: "not_mentioned" });
    expect(gateVerdict(human({ inThread: false }), config)).toEqual({ kind: "drop", reason: "not_in_thread" });
    expect(gateVerdict(human(), config)).toEqual({ kind: "need", fact: "participation" });
    expect(gateVerdict(human({ participation: "failed" }), config)).toEqual({ kind: "drop", reason: "thread_unreadable" });
    expect(gateVerdict(human({ participation: { involved: false, otherBot: false } }), config)).toEqual({ kind: "drop", reason: "not_involved" });
    expect(gateVerdict(human({ participation: { involved: true, otherBot: true } }), config)).toEqual({ kind: "accept" });
  });

  it("multibot-mentions: as involved, but not where another bot is", () => {
    const multibot = { ...config, allow_user_messages: "multibot-mentions" } as const;
    expect(gateVerdict(human({ participation: { involved: true, otherBot: false } }), multibot)).toEqual({ kind: "accept" });
    expect(gateVerdict(human({ participation: { involved: true, otherBot: true } }), multibot)).toEqual({ kind: "drop", reason: "multibot_without_mention" });
    expect(gateVerdict(human({ participation: { involved: true, otherBot: false }, otherBotKnown: true }), multibot)).toEqual({ kind: "drop", reason: "multibot_without_mention" });
  });

  it("DMs pass the user gate without a thread", () => {
    expect(gateVerdict(human({ isDm: true, inThread: false }), { ...config, allow_user_messages: "mentions" })).toEqual({ kind: "accept" });
  });
});

describe("gateVerdict: app_mention (§3.4)", () => {
  const mention = (overrides: Partial<MessageFacts> = {}) => human({ kind: "app_mention", mentionsBot: true, inThread: false, botTurn: undefined, ...overrides });

  it("a person's mention needs no count, thread or participation", () => {
    expect(gateVerdict(mention(), { ...config, allow_user_messages: "mentions" })).toEqual({ kind: "accept" });
  });

  it("a bot's mention: off drops, mentions and all check the trusted list only; its own is dropped", () => {
    expect(gateVerdict(mention({ isBot: true }), config)).toEqual({ kind: "drop", reason: "bot_messages_off" });
    expect(gateVerdict(mention({ isBot: true }), { ...config, allow_bot_messages: "mentions" })).toEqual({ kind: "accept" });
    const trusting = { ...config, allow_bot_messages: "all", trustsSomeBots: true } as const;
    expect(gateVerdict(mention({ isBot: true }), trusting)).toEqual({ kind: "need", fact: "trustedBot" });
    expect(gateVerdict(mention({ isBot: true, trustedBot: false }), trusting)).toEqual({ kind: "drop", reason: "bot_not_trusted" });
    expect(gateVerdict(mention({ isBot: true, isOwn: true }), trusting)).toEqual({ kind: "drop", reason: "own_message" });
  });
});

describe("gateVerdict: handle_message, both paths (§3.4)", () => {
  it("in order: complete, channel allowed, user allowed (🚫), not empty", () => {
    const facts = human({ isDm: true, inThread: false });
    expect(gateVerdict({ ...facts, complete: false, channelAllowed: false }, config)).toEqual({ kind: "drop", reason: "incomplete" });
    expect(gateVerdict({ ...facts, channelAllowed: false, userAllowed: false }, config)).toEqual({ kind: "drop", reason: "channel_not_allowed" });
    expect(gateVerdict({ ...facts, userAllowed: false, empty: true }, config)).toEqual({ kind: "deny", reason: "user_not_allowed" });
    expect(gateVerdict({ ...facts, empty: true }, config)).toEqual({ kind: "drop", reason: "empty" });
  });

  it("an unmentioned stranger in a thread is ignored silently, never denied", () => {
    expect(gateVerdict(human({ userAllowed: false, participation: { involved: false, otherBot: false } }), config)).toEqual({ kind: "drop", reason: "not_involved" });
  });
});
