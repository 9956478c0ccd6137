import { describe, expect, it } from "vitest";
import { countsSend, type PlatformRateLimits } from "../../../../operators/delivery/flow/platformRateLimits.js";

const perSecond = { messages: 1, perSecs: 1, burst: 1 };

describe("countsSend", () => {
  it("a kind counts when the conversation's buckets count it, or the bot's when there is a per-bot limit", () => {
    const limits: PlatformRateLimits = { conversationCounts: new Set(["message"]), botCounts: new Set(["message", "reaction"]) };
    expect(countsSend(limits, "message")).toBe(true);
    expect(countsSend(limits, "reaction")).toBe(false);
    expect(countsSend({ ...limits, perBot: perSecond }, "reaction")).toBe(true);
    expect(countsSend({ ...limits, perBot: perSecond }, "edit")).toBe(false);
  });
});
