import { describe, expect, it } from "vitest";
import { discordSection, parseIdList, snowflakeOf, type DiscordConfig } from "../../src/config/sections/discord.js";
import { expectLinear } from "../helpers/linearTime.js";

const TOKEN = "MTMxMTExMTExMTExMTExMTExMQ.GkT3xq.fake-token";

function discord(input: Record<string, unknown>): DiscordConfig {
  return discordSection.parse(input);
}

function problems(input: Record<string, unknown>): { path: string; message: string }[] {
  const result = discordSection.safeParse(input);
  if (result.success) throw new Error("expected [discord] to be refused");
  return result.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
}

describe("[discord]: OpenAB's keys and defaults (§2.1)", () => {
  it("fills every default from a section with only a token", () => {
    expect(discord({ bot_token: TOKEN })).toEqual({
      bot_token: TOKEN,
      allow_all_channels: true,
      allowed_channels: [],
      allow_all_users: true,
      allowed_users: [],
      allow_bot_messages: "off",
      trusted_bot_ids: [],
      allow_user_messages: "involved",
      max_bot_turns: 100,
      allowed_role_ids: [],
      allow_dm: false,
      message_processing_mode: "per-message",
      max_buffered_messages: 10,
      max_batch_tokens: 24_000,
      api_root: "https://discord.com/api",
      dropped_ids: [],
    });
  });

  it("takes upstream's full example as written", () => {
    const config = discord({
      bot_token: TOKEN,
      allowed_channels: ["1234567890123456789"],
      allowed_users: ["9876543210987654321"],
      allow_bot_messages: "Mentions",
      trusted_bot_ids: ["1111111111111111111"],
      allow_user_messages: "multibot_mentions",
      max_bot_turns: 20,
      allowed_role_ids: ["2222222222222222222"],
      allow_dm: true,
      message_processing_mode: "per-thread",
      max_buffered_messages: 5,
      max_batch_tokens: 8000,
    });
    expect(config).toMatchObject({
      allow_all_channels: false,
      allow_all_users: false,
      allow_bot_messages: "mentions",
      allow_user_messages: "multibot-mentions",
      max_bot_turns: 20,
      allow_dm: true,
      message_processing_mode: "per-thread",
    });
  });

  it("an explicit allow_all flag wins over the list (rule 5)", () => {
    expect(discord({ bot_token: TOKEN, allowed_channels: ["1"], allow_all_channels: true }).allow_all_channels).toBe(true);
    expect(discord({ bot_token: TOKEN, allow_all_users: false }).allow_all_users).toBe(false);
  });

  it("allow_bot_messages takes a TOML boolean", () => {
    expect(discord({ bot_token: TOKEN, allow_bot_messages: true }).allow_bot_messages).toBe("all");
  });

  it("requires bot_token, shaped as Discord's (its first part the bot's id, which names its receiver lease), never quoted", () => {
    expect(problems({}).map((problem) => problem.path)).toEqual(["bot_token"]);
    expect(problems({ bot_token: "" }).map((problem) => problem.path)).toEqual(["bot_token"]);
    for (const token of ["not-a-token", "bm9wZQ.GkT3xq.secret-part", "MTMxMTExMTExMTExMTExMTExMQ..secret-part"]) {
      const [problem] = problems({ bot_token: token });
      expect(problem).toEqual({ path: "bot_token", message: "is not a Discord bot token (value hidden); expected a bot token as the Developer Portal gives it: three dot-separated parts, the first the bot's id in base64" });
    }
  });

  it("refuses an unknown key, batched mode and a zero buffer", () => {
    expect(discordSection.safeParse({ bot_token: TOKEN, allow_dms: true }).success).toBe(false);
    expect(problems({ bot_token: TOKEN, message_processing_mode: "batched" }).map((problem) => problem.path)).toEqual(["message_processing_mode"]);
    expect(problems({ bot_token: TOKEN, max_buffered_messages: 0 }).map((problem) => problem.path)).toEqual(["max_buffered_messages"]);
  });

  it("api_root: an http(s) URL, trailing slashes dropped; anything else refused", () => {
    expect(discord({ bot_token: TOKEN, api_root: "http://127.0.0.1:9000/api//" }).api_root).toBe("http://127.0.0.1:9000/api");
    expect(problems({ bot_token: TOKEN, api_root: "ws://127.0.0.1/api" }).map((problem) => problem.path)).toEqual(["api_root"]);
  });
});

describe("[discord] ID lists (parse_id_set)", () => {
  it("snowflakeOf reads a u64 as Rust does", () => {
    expect(snowflakeOf("1234567890123456789")).toBe("1234567890123456789");
    expect(snowflakeOf("18446744073709551615")).toBe("18446744073709551615");
    expect(snowflakeOf("+42")).toBe("42");
    expect(snowflakeOf("007")).toBe("7");
    for (const bad of ["18446744073709551616", "-1", "", " 1", "1 ", "abc", "12a", "1e5", "123456789012345678901"]) expect(snowflakeOf(bad)).toBeUndefined();
  });

  it("drops an invalid entry and keeps it for the port's warning", () => {
    const config = discord({ bot_token: TOKEN, allowed_channels: ["123", "general", "456"], allowed_users: ["x", "7"] });
    expect(config.allowed_channels).toEqual(["123", "456"]);
    expect(config.allowed_users).toEqual(["7"]);
    expect(config.dropped_ids).toEqual([
      { label: "discord.allowed_channels", value: "general" },
      { label: "discord.allowed_users", value: "x" },
    ]);
  });

  it.each(["allowed_channels", "allowed_users", "trusted_bot_ids", "allowed_role_ids"])("%s: every entry invalid → refused with upstream's words", (key) => {
    expect(problems({ bot_token: TOKEN, [key]: ["general", "random"] })).toEqual([
      { path: key, message: `all discord.${key} entries failed to parse — refusing to start with an empty allowlist` },
    ]);
  });

  it("parseIdList keeps order and drops duplicates", () => {
    expect(parseIdList(["3", "1", "3", "+1"], "l")).toEqual({ ids: ["3", "1"], dropped: [] });
  });

  it("a long run of slashes in api_root is trimmed in linear time", () => {
    const slashes = (count: number) => ({ bot_token: TOKEN, api_root: `http://127.0.0.1/${"/".repeat(count)}` });
    expect(discord(slashes(1_000_000)).api_root).toBe("http://127.0.0.1");
    expectLinear(slashes, discord, 1_000_000);
  });
});
