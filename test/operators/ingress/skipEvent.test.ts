import { describe, expect, it } from "vitest";
import { type SkipConfig, skipReason } from "../../../operators/ingress/skipEvent.js";
import { resolveConfig } from "../../../src/config/index.js";
import { gatewayEvent } from "../../helpers/events.js";

const config = (overrides: Partial<SkipConfig> = {}): SkipConfig => ({
  allow_bot_messages: false,
  trusted_bot_ids: [],
  ...overrides,
});

const bot = gatewayEvent({ sender: { id: "bot-1", name: "helper", display_name: "Helper", is_bot: true } });
const inGroup = (type: string, extra: { thread_id?: string | null; mentions?: string[] } = {}) =>
  gatewayEvent({
    channel: { id: "g1", type, ...(extra.thread_id !== undefined ? { thread_id: extra.thread_id } : {}) },
    mentions: extra.mentions ?? [],
  });

describe("skipReason (§12.2)", () => {
  it("first: skips an event of a platform spoken to natively, whoever sent it (its replies would go to the native adapter's bot)", () => {
    const telegram = gatewayEvent({ platform: "telegram" });
    expect(skipReason(telegram, config({ native_platforms: ["telegram"] }))).toBe("platform_native");
    expect(skipReason({ ...bot, platform: "telegram" }, config({ native_platforms: ["telegram"] }))).toBe("platform_native");
    expect(skipReason(gatewayEvent({ platform: "discord" }), config({ native_platforms: ["telegram"] }))).toBeUndefined();
    expect(skipReason(telegram, config())).toBeUndefined();
  });

  it("keeps a human's message by default", () => {
    expect(skipReason(gatewayEvent(), config())).toBeUndefined();
  });

  it("rule 1: skips a bot unless bot messages are allowed or the bot is trusted", () => {
    expect(skipReason(bot, config())).toBe("bot_not_trusted");
    expect(skipReason(bot, config({ trusted_bot_ids: ["other-bot"] }))).toBe("bot_not_trusted");
    expect(skipReason(bot, config({ allow_bot_messages: true }))).toBeUndefined();
    expect(skipReason(bot, config({ trusted_bot_ids: ["bot-1"] }))).toBeUndefined();
  });

  it("rules 2 and 3: the channel and user allow-lists are not applied here", () => {
    // SkipConfig has no allow-lists at all; the resolved [gateway] section's lists are ignored.
    const gateway = { ...config(), allowed_channels: ["elsewhere"], allowed_users: ["someone-else"] };
    expect(skipReason(gatewayEvent(), gateway)).toBeUndefined();
  });

  it("rule 4: skips a group or supergroup message without a thread that does not mention bot_username", () => {
    const gated = config({ bot_username: "mybot" });
    expect(skipReason(inGroup("group"), gated)).toBe("not_mentioned");
    expect(skipReason(inGroup("supergroup", { mentions: ["someone"] }), gated)).toBe("not_mentioned");
    expect(skipReason(inGroup("group", { thread_id: null }), gated)).toBe("not_mentioned");
    expect(skipReason(inGroup("group", { thread_id: "" }), gated)).toBe("not_mentioned");
  });

  it("rule 4: keeps the message when the bot is mentioned", () => {
    expect(skipReason(inGroup("group", { mentions: ["x", "mybot"] }), config({ bot_username: "mybot" }))).toBeUndefined();
  });

  it("rule 4: keeps the message in a thread, in other channel types, or without bot_username", () => {
    expect(skipReason(inGroup("supergroup", { thread_id: "t1" }), config({ bot_username: "mybot" }))).toBeUndefined();
    expect(skipReason(inGroup("dm"), config({ bot_username: "mybot" }))).toBeUndefined();
    expect(skipReason(inGroup("channel"), config({ bot_username: "mybot" }))).toBeUndefined();
    expect(skipReason(inGroup("group"), config())).toBeUndefined();
    expect(skipReason(inGroup("group"), config({ bot_username: "" }))).toBeUndefined();
  });

  it("rule 4: matches the username exactly, as upstream", () => {
    expect(skipReason(inGroup("group", { mentions: ["MyBot", "@mybot"] }), config({ bot_username: "mybot" }))).toBe("not_mentioned");
  });

  it("rule 1 comes first", () => {
    const groupBot = gatewayEvent({ channel: { id: "g1", type: "group" }, sender: bot.sender });
    expect(skipReason(groupBot, config({ bot_username: "mybot" }))).toBe("bot_not_trusted");
  });
});

describe("skipReason with the resolved [gateway] section", () => {
  it("takes the section as is", () => {
    const gateway = resolveConfig({ gateway: { url: "ws://gateway:8080/ws", bot_username: "mybot" } }, { env: {} }).gateway;
    if (gateway === undefined) throw new Error("no [gateway]");
    expect(skipReason(bot, gateway)).toBe("bot_not_trusted");
    expect(skipReason(inGroup("group"), gateway)).toBe("not_mentioned");
  });
});
