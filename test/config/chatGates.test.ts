import { describe, expect, it } from "vitest";
import * as z from "zod";
import { allowBotMessages, allowUserMessages, chatGateKeys, resolveAllowAll } from "../../src/config/sections/chatGates.js";

const gates = z.strictObject(chatGateKeys);

describe("allow_bot_messages (upstream's modes, aliases and a TOML boolean)", () => {
  const schema = allowBotMessages();
  it.each([
    ["off", "off"],
    ["mentions", "mentions"],
    ["all", "all"],
    ["OFF", "off"],
    ["Mentions", "mentions"],
    ["ALL", "all"],
    ["none", "off"],
    ["None", "off"],
    ["false", "off"],
    ["FALSE", "off"],
    ["true", "all"],
    ["True", "all"],
    [true, "all"],
    [false, "off"],
  ])("%j → %s", (input, expected) => {
    expect(schema.parse(input)).toBe(expected);
  });

  it.each(["bogus", "mention", "", "yes"])("refuses %j", (input) => {
    expect(schema.safeParse(input).success).toBe(false);
  });

  it("refuses a number", () => {
    expect(schema.safeParse(1).success).toBe(false);
  });
});

describe("allow_user_messages (case-insensitive, _ for -)", () => {
  const schema = allowUserMessages();
  it.each([
    ["involved", "involved"],
    ["INVOLVED", "involved"],
    ["mentions", "mentions"],
    ["multibot-mentions", "multibot-mentions"],
    ["multibot_mentions", "multibot-mentions"],
    ["MultiBot_Mentions", "multibot-mentions"],
  ])("%j → %s", (input, expected) => {
    expect(schema.parse(input)).toBe(expected);
  });

  it.each(["all", "multibot", "multibot mentions", ""])("refuses %j", (input) => {
    expect(schema.safeParse(input).success).toBe(false);
  });
});

describe("the shared keys' defaults are upstream's (v0.8.3)", () => {
  it("fills every default", () => {
    expect(gates.parse({})).toEqual({
      allow_bot_messages: "off",
      trusted_bot_ids: [],
      allow_user_messages: "involved",
      max_bot_turns: 100,
      message_processing_mode: "per-message",
      max_buffered_messages: 10,
      max_batch_tokens: 24_000,
    });
  });

  it("max_bot_turns is a u32: 0 and 4294967295 pass, -1, 2^32 and 1.5 do not", () => {
    expect(gates.parse({ max_bot_turns: 0 }).max_bot_turns).toBe(0);
    expect(gates.parse({ max_bot_turns: 4_294_967_295 }).max_bot_turns).toBe(4_294_967_295);
    for (const bad of [-1, 4_294_967_296, 1.5, "5"]) expect(gates.safeParse({ max_bot_turns: bad }).success).toBe(false);
  });

  it("message_processing_mode: per-message / per-thread / per-lane; batched and bogus refused (config.rs::message_processing_mode_*)", () => {
    for (const mode of ["per-message", "per-thread", "per-lane", "PER-LANE"]) expect(gates.safeParse({ message_processing_mode: mode }).success).toBe(true);
    for (const mode of ["batched", "bogus"]) expect(gates.safeParse({ message_processing_mode: mode }).success).toBe(false);
  });

  it("max_buffered_messages and max_batch_tokens must be > 0", () => {
    expect(gates.safeParse({ max_buffered_messages: 0 }).success).toBe(false);
    expect(gates.safeParse({ max_batch_tokens: 0 }).success).toBe(false);
    expect(gates.parse({ max_buffered_messages: 1, max_batch_tokens: 1 })).toMatchObject({ max_buffered_messages: 1, max_batch_tokens: 1 });
  });
});

describe("resolveAllowAll (rule 5: an explicit flag wins; omitted = the list is empty)", () => {
  it.each([
    [undefined, [], true],
    [undefined, ["1"], false],
    [true, ["1"], true],
    [false, [], false],
    [false, ["1"], false],
    [true, [], true],
  ] as const)("flag %s, list %j → %s", (flag, list, expected) => {
    expect(resolveAllowAll(flag, list)).toBe(expected);
  });
});
