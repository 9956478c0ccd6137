import { describe, expect, it } from "vitest";
import { asGoodAsNew, departureOf, platformOf, takeTokens, type Conversation } from "../../../../operators/delivery/flow/conversationBuckets.js";
import type { PlatformRateLimits } from "../../../../operators/delivery/flow/platformRateLimits.js";
import type { BucketLimit } from "../../../../operators/delivery/flow/tokenBucket.js";

const perSecond: BucketLimit = { messages: 1, perSecs: 1, burst: 1 };
const perThreeSecs: BucketLimit = { messages: 1, perSecs: 3, burst: 1 };
const counts = { conversationCounts: new Set(["message"] as const), botCounts: new Set(["message"] as const) };

/** A new conversation of a platform with these limits. */
function conversation(limits: Partial<PlatformRateLimits>): Conversation {
  const platform = platformOf("telegram", { ...counts, ...limits });
  if (platform === undefined) throw new Error("a platform with limits is applied");
  return { platform, bucket: undefined, group: undefined, heldUntil: 0, lane: undefined };
}

describe("platformOf", () => {
  it("no limits: nothing to apply", () => {
    expect(platformOf("telegram", undefined)).toBeUndefined();
  });

  it("the bot's limit is asked with its window widened by four margins (30 per 1.1 s for 30 per second)", () => {
    const platform = platformOf("telegram", { ...counts, perBot: { messages: 30, perSecs: 1, burst: 30 } });
    expect(platform?.margin).toBe(25);
    expect(platform?.shared).toEqual({ messages: 30, perSecs: 1.1, burst: 30 });
  });

  it("without a per-bot limit, no shared bucket and no margin", () => {
    const platform = platformOf("telegram", { ...counts, perConversation: perSecond });
    expect(platform?.shared).toBeUndefined();
    expect(platform?.margin).toBe(0);
  });
});

describe("departureOf and takeTokens", () => {
  it("a new conversation lets a send go now; its token taken, the next waits for the conversation's rate", () => {
    const c = conversation({ perConversation: perSecond });
    expect(departureOf(c, true, false, 0)).toBe(0);
    takeTokens(c, false, 0);
    expect(departureOf(c, true, false, 200)).toBe(1000);
  });

  it("a group send waits for the group's bucket too; a send the buckets do not count waits for neither", () => {
    const c = conversation({ perConversation: perSecond, perGroup: perThreeSecs });
    takeTokens(c, true, 0);
    expect(departureOf(c, true, true, 0)).toBe(3000);
    expect(departureOf(c, true, false, 0)).toBe(1000);
    expect(departureOf(c, false, true, 0)).toBe(0);
  });

  it("a hold on the conversation binds every send, counted or not", () => {
    const c = conversation({});
    c.heldUntil = 5000;
    expect(departureOf(c, false, false, 0)).toBe(5000);
    expect(departureOf(c, true, false, 6000)).toBe(6000);
  });
});

describe("asGoodAsNew", () => {
  it("a conversation can be forgotten once its buckets are full again and its window empty", () => {
    const c = conversation({ perConversation: perSecond, perGroup: perThreeSecs });
    expect(asGoodAsNew(c, 0)).toBe(true);
    takeTokens(c, true, 0);
    expect(asGoodAsNew(c, 500)).toBe(false);
    expect(asGoodAsNew(c, 1000)).toBe(false); // the group's bucket is not full yet
    expect(asGoodAsNew(c, 3000)).toBe(true);
  });

  it("never while a send waits in its lane or a hold lasts", () => {
    const waiting = conversation({ perConversation: perSecond });
    waiting.lane = [];
    expect(asGoodAsNew(waiting, 0)).toBe(false);
    const held = conversation({ perConversation: perSecond });
    held.heldUntil = 100;
    expect(asGoodAsNew(held, 99)).toBe(false);
    expect(asGoodAsNew(held, 100)).toBe(true);
  });
});
