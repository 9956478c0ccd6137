import { describe, expect, it } from "vitest";
import { resolveMentions } from "../../../src/platforms/discord/mentions.js";
import { expectLinear } from "../../helpers/linearTime.js";

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

  it("is linear: 100 000 unterminated openers", () => {
    const openers = (count: number) => "<@1".repeat(count);
    expect(resolveMentions(openers(100_000), "111", NONE)).toBe(openers(100_000));
    // Not more: the text is built a character at a time, and at 200 000 those strings outgrow the
    // young generation, so the one long run pays collections the ten short ones do not.
    expectLinear(openers, (text) => resolveMentions(text, "111", NONE), 100_000);
  });
});
