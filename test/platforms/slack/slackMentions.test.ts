import { describe, expect, it } from "vitest";
import { mentionsBot, resolveSlackMentions } from "../../../src/platforms/slack/slackMentions.js";
import { expectLinear } from "../../helpers/linearTime.js";

describe("resolveSlackMentions (§6.4)", () => {
  it("strips the bot's mention and trims", () => {
    expect(resolveSlackMentions("<@U1BOT> hello", "U1BOT")).toBe("hello");
  });

  it("keeps other users' mentions", () => {
    expect(resolveSlackMentions("<@U1BOT> say hi to <@U2ALICE>", "U1BOT")).toBe("say hi to <@U2ALICE>");
  });

  it("strips repeated mentions of the bot", () => {
    expect(resolveSlackMentions("<@U1BOT> ping <@U1BOT>", "U1BOT")).toBe("ping");
  });

  it("with the bot unknown, changes nothing but the ends", () => {
    expect(resolveSlackMentions("<@U1BOT> hi <@U2ALICE>", undefined)).toBe("<@U1BOT> hi <@U2ALICE>");
    expect(resolveSlackMentions("  hi  ", undefined)).toBe("hi");
  });

  it("strips the labelled form <@BOT|label> (newer upstream)", () => {
    expect(resolveSlackMentions("<@U1BOT|turnstream> hello <@U2ALICE|alice>", "U1BOT")).toBe("hello <@U2ALICE|alice>");
  });

  it("keeps inner spaces, and a user whose id starts with the bot's", () => {
    expect(resolveSlackMentions("hello <@U1BOT> world", "U1BOT")).toBe("hello  world");
    expect(resolveSlackMentions("<@U1BOTX> hi", "U1BOT")).toBe("<@U1BOTX> hi");
  });

  it("leaves an unclosed labelled mention as written", () => {
    expect(resolveSlackMentions("a <@U1BOT|half", "U1BOT")).toBe("a <@U1BOT|half");
  });

  it("is linear: a million unclosed openers", () => {
    const openers = (count: number) => "<@U1BOT|".repeat(count);
    expect(resolveSlackMentions(openers(1_000_000), "U1BOT")).toBe(openers(1_000_000));
    expectLinear(openers, (text) => resolveSlackMentions(text, "U1BOT"), 1_000_000);
  });
});

describe("mentionsBot", () => {
  it("finds both forms, and nothing while the bot is unknown", () => {
    expect(mentionsBot("hi <@U1BOT>", "U1BOT")).toBe(true);
    expect(mentionsBot("hi <@U1BOT|bot>", "U1BOT")).toBe(true);
    expect(mentionsBot("hi <@U1BOTX>", "U1BOT")).toBe(false);
    expect(mentionsBot("hi <@U1BOT>", undefined)).toBe(false);
  });
});
