import { describe, expect, it } from "vitest";
import { participationOf, trailingBotRun } from "../../../src/platforms/slack/threadReplies.js";

const BOT = "U1BOT";

describe("participationOf (§3.5)", () => {
  it("involved when the parent mentions the bot, either form", () => {
    expect(participationOf([{ user: "U2", text: "<@U1BOT> help" }, { user: "U2", text: "more" }], BOT)).toEqual({ involved: true, otherBot: false });
    expect(participationOf([{ user: "U2", text: "<@U1BOT|bot> help" }], BOT)).toEqual({ involved: true, otherBot: false });
  });

  it("a mention later in the thread does not count; a post by the bot does", () => {
    expect(participationOf([{ user: "U2", text: "hi" }, { user: "U3", text: "<@U1BOT> hm" }], BOT)).toEqual({ involved: false, otherBot: false });
    expect(participationOf([{ user: "U2", text: "hi" }, { user: BOT, bot_id: "B1", text: "answer" }], BOT)).toEqual({ involved: true, otherBot: false });
  });

  it("another bot: any bot message not by this bot, legacy bot_message included", () => {
    expect(participationOf([{ user: "U2", text: "hi" }, { user: "U9", bot_id: "B9", text: "x" }], BOT)).toEqual({ involved: false, otherBot: true });
    expect(participationOf([{ user: "U2", text: "hi" }, { subtype: "bot_message", bot_id: "B9", text: "x" }], BOT)).toEqual({ involved: false, otherBot: true });
  });

  it("an empty or odd thread is not involved", () => {
    expect(participationOf([], BOT)).toEqual({ involved: false, otherBot: false });
    expect(participationOf([{ text: 5 }], BOT)).toEqual({ involved: false, otherBot: false });
  });
});

describe("trailingBotRun", () => {
  it("counts the newest bot messages in a row, any bot", () => {
    expect(trailingBotRun([{ user: "U2" }, { bot_id: "B1" }, { user: BOT, bot_id: "B0" }])).toBe(2);
    expect(trailingBotRun([{ bot_id: "B1" }, { user: "U2" }])).toBe(0);
    expect(trailingBotRun([])).toBe(0);
  });
});
