import { describe, expect, it } from "vitest";
import { resolveMentions } from "../../../src/platforms/discord/mentions.js";

const NONE: ReadonlySet<string> = new Set();

// §6.2, discord.rs::resolve_mentions_*
describe("resolveMentions (§2.4)", () => {
  it.each([
    ["hello <@111> world", NONE, "hello  world"],
    ["hello <@!111> world", NONE, "hello  world"],
    ["<@111> say hi to <@222>", NONE, "say hi to <@222>"],
    ["hello <@&999>", NONE, "hello @(role)"],
    ["<@111>", NONE, ""],
    ["hello <@&999> world", new Set(["999"]), "hello  world"],
    ["<@&999> check <@&888>", new Set(["999"]), "check @(role)"],
  ])("%j (roles %j) → %j", (content, roles, expected) => {
    expect(resolveMentions(content, "111", roles)).toBe(expected);
  });

  it("keeps another user's legacy mention, @everyone and broken markup as written", () => {
    expect(resolveMentions("<@!222> @everyone <@ 111> <@111 <@> <@&> <@!>", "111", NONE)).toBe("<@!222> @everyone <@ 111> <@111 <@> <@&> <@!>");
  });

  it("removes every mention of the bot, repeated ones too", () => {
    expect(resolveMentions("<@111><@111> hi <@!111>", "111", NONE)).toBe("hi");
  });

  it("is linear: 200 000 unterminated openers take well under a second", () => {
    const text = "<@1".repeat(200_000);
    const started = performance.now();
    expect(resolveMentions(text, "111", NONE)).toBe(text);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
