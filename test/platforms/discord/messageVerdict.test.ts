import { describe, expect, it } from "vitest";
import { BotTurns } from "../../../src/platforms/botTurns.js";
import type { ChannelKind } from "../../../src/platforms/discord/detectThread.js";
import { isMentioned, messageVerdict, resetsBotTurns, type MessageFacts, type MessageGates } from "../../../src/platforms/discord/messageVerdict.js";

const BOT = "111";
const HUMAN = "500";
const OTHER_BOT = "600";
const CHANNEL: ChannelKind = { kind: "channel", id: "100", parentId: undefined };
const THREAD: ChannelKind = { kind: "thread", id: "200", parentId: "100", ownerId: BOT };
const FOREIGN_THREAD: ChannelKind = { kind: "thread", id: "201", parentId: "100", ownerId: HUMAN };
const DM: ChannelKind = { kind: "dm", id: "300" };

const GATES: MessageGates = {
  allowAllChannels: false,
  allowedChannels: new Set(["100"]),
  allowAllUsers: false,
  allowedUsers: new Set([HUMAN]),
  allowBotMessages: "off",
  trustedBotIds: new Set(),
  allowUserMessages: "involved",
  allowedRoleIds: new Set(["999"]),
  allowDm: false,
};

function facts(overrides: Partial<MessageFacts> = {}): MessageFacts {
  return { botId: BOT, authorId: HUMAN, authorIsBot: false, content: `<@${BOT}> hello`, attachmentCount: 0, mentionedUserIds: [BOT], mentionedRoleIds: [], channel: CHANNEL, otherBotKnown: false, ...overrides };
}

const unmentioned = { content: "hello", mentionedUserIds: [] } as const;

describe("messageVerdict: §2.3 in order", () => {
  it("a mention in an allowed channel opens a thread from the message, prompt without the mention", () => {
    expect(messageVerdict(facts(), GATES)).toEqual({ kind: "accept", prompt: "hello", place: { kind: "new-thread", parentId: "100" }, otherBotPresent: false });
  });

  it("an allowed role's mention counts; another role's does not", () => {
    expect(messageVerdict(facts({ content: "<@&999> hi", mentionedUserIds: [], mentionedRoleIds: ["999"] }), GATES)).toMatchObject({ kind: "accept", prompt: "hi" });
    expect(messageVerdict(facts({ content: "<@&888> hi", mentionedUserIds: [], mentionedRoleIds: ["888"] }), GATES)).toEqual({ kind: "drop", reason: "not_in_thread" });
  });

  it("own messages are dropped", () => {
    expect(messageVerdict(facts({ authorId: BOT, authorIsBot: true, botTurn: { action: "continue" } }), GATES)).toEqual({ kind: "drop", reason: "own_message" });
  });

  it("the bot gate: off drops, mentions needs a mention, trusted_bot_ids restricts", () => {
    const bot = { authorId: OTHER_BOT, authorIsBot: true, botTurn: { action: "continue" } } as const;
    expect(messageVerdict(facts(bot), GATES)).toEqual({ kind: "drop", reason: "bot_messages_off" });
    expect(messageVerdict(facts({ ...bot, ...unmentioned }), { ...GATES, allowBotMessages: "mentions" })).toEqual({ kind: "drop", reason: "bot_not_mentioned" });
    expect(messageVerdict(facts(bot), { ...GATES, allowBotMessages: "mentions", trustedBotIds: new Set(["7"]) })).toEqual({ kind: "drop", reason: "bot_not_trusted" });
    expect(messageVerdict(facts(bot), { ...GATES, allowBotMessages: "all", trustedBotIds: new Set([OTHER_BOT]) })).toMatchObject({ kind: "accept" });
  });

  it("bots never meet the user allow-list", () => {
    expect(messageVerdict(facts({ authorId: OTHER_BOT, authorIsBot: true, botTurn: { action: "continue" } }), { ...GATES, allowBotMessages: "all" })).toMatchObject({ kind: "accept" });
  });

  it("a DM needs allow_dm, counts as mentioned and replies in the DM", () => {
    expect(messageVerdict(facts({ channel: DM, ...unmentioned }), GATES)).toEqual({ kind: "drop", reason: "dm_not_allowed" });
    expect(messageVerdict(facts({ channel: DM, ...unmentioned }), { ...GATES, allowDm: true })).toEqual({ kind: "accept", prompt: "hello", place: { kind: "dm", channelId: "300" }, otherBotPresent: false });
  });

  it("a channel not listed is dropped; a thread under a listed parent passes", () => {
    expect(messageVerdict(facts({ channel: { kind: "channel", id: "101", parentId: undefined } }), GATES)).toEqual({ kind: "drop", reason: "channel_not_allowed" });
    expect(messageVerdict(facts({ channel: THREAD }), GATES)).toEqual({ kind: "accept", prompt: "hello", place: { kind: "thread", parentId: "100", threadId: "200" }, otherBotPresent: false });
  });

  it("a channel that could not be looked up is treated as a plain channel (upstream: neither thread nor DM)", () => {
    expect(messageVerdict(facts({ channel: { kind: "unknown", id: "100" } }), GATES)).toMatchObject({ kind: "accept", place: { kind: "new-thread", parentId: "100" } });
  });

  it("involved: an unmentioned message in the bot's own thread passes without a fetch", () => {
    expect(messageVerdict(facts({ channel: THREAD, ...unmentioned }), GATES)).toMatchObject({ kind: "accept", prompt: "hello" });
  });

  it("involved: another's thread asks for the participation check, then follows it", () => {
    const base = facts({ channel: FOREIGN_THREAD, ...unmentioned });
    expect(messageVerdict(base, GATES)).toEqual({ kind: "needs-participation" });
    expect(messageVerdict({ ...base, participation: { involved: false, otherBot: false } }, GATES)).toEqual({ kind: "drop", reason: "not_involved" });
    expect(messageVerdict({ ...base, participation: { involved: true, otherBot: true } }, GATES)).toMatchObject({ kind: "accept" });
  });

  it("multibot-mentions: asks even in its own thread, drops where another bot talks", () => {
    const gates = { ...GATES, allowUserMessages: "multibot-mentions" } as const;
    const base = facts({ channel: THREAD, ...unmentioned });
    expect(messageVerdict(base, gates)).toEqual({ kind: "needs-participation" });
    expect(messageVerdict({ ...base, participation: { involved: false, otherBot: false } }, gates)).toMatchObject({ kind: "accept" });
    expect(messageVerdict({ ...base, participation: { involved: true, otherBot: true } }, gates)).toEqual({ kind: "drop", reason: "multibot_thread" });
    expect(messageVerdict({ ...base, otherBotKnown: true, participation: { involved: true, otherBot: false } }, gates)).toEqual({ kind: "drop", reason: "multibot_thread" });
  });

  it("mentions mode drops every unmentioned message; an unmentioned top-level message is never a turn", () => {
    expect(messageVerdict(facts({ channel: THREAD, ...unmentioned }), { ...GATES, allowUserMessages: "mentions" })).toEqual({ kind: "drop", reason: "not_mentioned" });
    expect(messageVerdict(facts(unmentioned), GATES)).toEqual({ kind: "drop", reason: "not_in_thread" });
  });

  it("a human outside allowed_users who mentions the bot is denied (🚫); unmentioned chatter is dropped silently before", () => {
    expect(messageVerdict(facts({ authorId: "501" }), GATES)).toEqual({ kind: "deny", reason: "denied_user" });
    expect(messageVerdict(facts({ authorId: "501", ...unmentioned }), GATES)).toEqual({ kind: "drop", reason: "not_in_thread" });
  });

  it("an empty prompt without attachments is dropped; with one it passes", () => {
    expect(messageVerdict(facts({ content: `<@${BOT}>` }), GATES)).toEqual({ kind: "drop", reason: "empty_prompt" });
    expect(messageVerdict(facts({ content: `<@${BOT}>`, attachmentCount: 1 }), GATES)).toMatchObject({ kind: "accept", prompt: "" });
  });

  it("otherBotPresent comes from the multibot cache of the message's channel", () => {
    expect(messageVerdict(facts({ otherBotKnown: true }), GATES)).toMatchObject({ kind: "accept", otherBotPresent: true });
  });
});

describe("messageVerdict: bot turn limits (§2.3 step 2)", () => {
  const warn = new BotTurns({ maxBotTurns: 1 }).classify("t");
  const bot = { authorId: OTHER_BOT, authorIsBot: true, botTurn: warn } as const;

  it("a silent stop drops before every other gate", () => {
    expect(messageVerdict(facts({ ...bot, botTurn: { action: "silent-stop" } }), { ...GATES, allowBotMessages: "all" })).toEqual({ kind: "drop", reason: "bot_turn_limit" });
  });

  it("a warning is posted only where the channel is allowed and the bot took part", () => {
    const base = facts({ ...bot, channel: FOREIGN_THREAD });
    expect(messageVerdict(base, GATES)).toEqual({ kind: "needs-participation" });
    expect(messageVerdict({ ...base, participation: { involved: true, otherBot: true } }, GATES)).toEqual({ kind: "turn-limit", reason: "bot_turn_limit", limit: "soft", text: warn.action === "warn-and-stop" ? warn.text : "", post: true });
    expect(messageVerdict({ ...base, participation: { involved: false, otherBot: true } }, GATES)).toMatchObject({ kind: "turn-limit", post: false });
    expect(messageVerdict(facts({ ...bot, channel: { kind: "thread", id: "9", parentId: "8", ownerId: BOT } }), GATES)).toMatchObject({ kind: "turn-limit", post: false });
  });

  it("this bot's own message at the limit stops, and posts nothing", () => {
    expect(messageVerdict(facts({ ...bot, authorId: BOT }), GATES)).toMatchObject({ kind: "turn-limit", post: false });
  });
});

describe("isMentioned and resetsBotTurns", () => {
  it("the bot in the mention list or the text, or an allowed role", () => {
    expect(isMentioned({ botId: BOT, content: "x", mentionedUserIds: [BOT], mentionedRoleIds: [] }, new Set())).toBe(true);
    expect(isMentioned({ botId: BOT, content: `<@${BOT}>`, mentionedUserIds: [], mentionedRoleIds: [] }, new Set())).toBe(true);
    expect(isMentioned({ botId: BOT, content: "x", mentionedUserIds: [], mentionedRoleIds: ["999"] }, new Set(["999"]))).toBe(true);
    expect(isMentioned({ botId: BOT, content: "x", mentionedUserIds: [], mentionedRoleIds: ["999"] }, new Set())).toBe(false);
  });

  it("a human's regular message or reply with text resets; a bot's, an empty one or another type does not", () => {
    expect(resetsBotTurns({ authorIsBot: false, type: 0, content: "hi" })).toBe(true);
    expect(resetsBotTurns({ authorIsBot: false, type: 19, content: "hi" })).toBe(true);
    expect(resetsBotTurns({ authorIsBot: false, type: 0, content: "" })).toBe(false);
    expect(resetsBotTurns({ authorIsBot: false, type: 7, content: "joined" })).toBe(false);
    expect(resetsBotTurns({ authorIsBot: true, type: 0, content: "hi" })).toBe(false);
  });
});
